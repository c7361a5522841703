// A Go program using kuaisuo through cgo and pkg-config, as a Go user
// would (tests/consumer/run.sh builds and runs it where Go is installed):
// the GB/T 32905 SM3 example, and an SM2 signature made and verified with
// a fresh key.
package main

/*
#cgo pkg-config: kuaisuo
#include <kuaisuo.h>
*/
import "C"

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"unsafe"
)

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}

func bytesPtr(b []byte) *C.uint8_t { return (*C.uint8_t)(unsafe.Pointer(&b[0])) }

func main() {
	msg := []byte("abc")
	digest := make([]byte, C.KS_SM3_DIGEST_BYTES)
	if rc := C.ks_sm3(unsafe.Pointer(&msg[0]), C.size_t(len(msg)), bytesPtr(digest)); rc != C.KS_OK {
		fail("ks_sm3: %s", C.GoString(C.ks_strerror(rc)))
	}
	want, _ := hex.DecodeString("66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0")
	if !bytes.Equal(digest, want) {
		fail("SM3(\"abc\") = %x", digest)
	}

	var key *C.ks_sm2_key
	var pub *C.ks_sm2_pubkey
	if C.ks_sm2_key_generate(&key) != C.KS_OK || C.ks_sm2_key_public(key, &pub) != C.KS_OK {
		fail("SM2 key generation failed")
	}
	defer C.ks_sm2_key_free(key)
	defer C.ks_sm2_pubkey_free(pub)
	id := []byte(C.KS_SM2_DEFAULT_ID)
	text := []byte("signed from Go")
	sig := make([]byte, C.KS_SM2_SIGNATURE_BYTES)
	if rc := C.ks_sm2_sign(key, bytesPtr(id), C.size_t(len(id)), bytesPtr(text),
		C.size_t(len(text)), C.KS_SM2_NONCE_RANDOM, bytesPtr(sig)); rc != C.KS_OK {
		fail("ks_sm2_sign: %s", C.GoString(C.ks_strerror(rc)))
	}
	if rc := C.ks_sm2_verify(pub, bytesPtr(id), C.size_t(len(id)), bytesPtr(text),
		C.size_t(len(text)), bytesPtr(sig)); rc != C.KS_OK {
		fail("ks_sm2_verify: %s", C.GoString(C.ks_strerror(rc)))
	}
	text[0] ^= 1
	if C.ks_sm2_verify(pub, bytesPtr(id), C.size_t(len(id)), bytesPtr(text),
		C.size_t(len(text)), bytesPtr(sig)) != C.KS_ERR_VERIFY_FAILED {
		fail("a changed message verified")
	}
	fmt.Printf("kuaisuo %s from Go: SM3 and SM2 OK\n", C.GoString(C.ks_version_string()))
}
