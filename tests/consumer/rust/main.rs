// A Rust program calling kuaisuo's C API (tests/consumer/run.sh builds it
// with rustc against the installed shared library, where Rust is
// installed): the GB/T 32905 SM3 example, and an SM2 signature made and
// verified with a fresh key. A real crate would generate these
// declarations with bindgen from include/kuaisuo.h.
use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_void};
use std::process::exit;

const KS_OK: c_int = 0;
const KS_ERR_VERIFY_FAILED: c_int = -44;
const KS_SM2_NONCE_RANDOM: c_int = 0;

#[link(name = "kuaisuo")]
extern "C" {
    fn ks_version_string() -> *const c_char;
    fn ks_strerror(code: c_int) -> *const c_char;
    fn ks_sm3(data: *const c_void, len: usize, out: *mut u8) -> c_int;
    fn ks_sm2_key_generate(out: *mut *mut c_void) -> c_int;
    fn ks_sm2_key_public(key: *const c_void, out: *mut *mut c_void) -> c_int;
    fn ks_sm2_key_free(key: *mut c_void);
    fn ks_sm2_pubkey_free(key: *mut c_void);
    fn ks_sm2_sign(key: *const c_void, id: *const u8, id_len: usize, msg: *const u8,
                   msg_len: usize, nonce: c_int, sig: *mut u8) -> c_int;
    fn ks_sm2_verify(key: *const c_void, id: *const u8, id_len: usize, msg: *const u8,
                     msg_len: usize, sig: *const u8) -> c_int;
}

fn check(rc: c_int, what: &str) {
    if rc != KS_OK {
        let why = unsafe { CStr::from_ptr(ks_strerror(rc)) }.to_string_lossy();
        eprintln!("{}: {}", what, why);
        exit(1);
    }
}

fn main() {
    let mut digest = [0u8; 32];
    check(unsafe { ks_sm3(b"abc".as_ptr() as *const c_void, 3, digest.as_mut_ptr()) }, "ks_sm3");
    let hex: String = digest.iter().map(|b| format!("{:02x}", b)).collect();
    if hex != "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0" {
        eprintln!("SM3(\"abc\") = {}", hex);
        exit(1);
    }
    let (mut key, mut public) = (std::ptr::null_mut(), std::ptr::null_mut());
    check(unsafe { ks_sm2_key_generate(&mut key) }, "ks_sm2_key_generate");
    check(unsafe { ks_sm2_key_public(key, &mut public) }, "ks_sm2_key_public");
    let id = b"1234567812345678";
    let mut msg = b"signed from Rust".to_vec();
    let mut sig = [0u8; 64];
    check(unsafe {
        ks_sm2_sign(key, id.as_ptr(), id.len(), msg.as_ptr(), msg.len(), KS_SM2_NONCE_RANDOM,
                    sig.as_mut_ptr())
    }, "ks_sm2_sign");
    check(unsafe { ks_sm2_verify(public, id.as_ptr(), id.len(), msg.as_ptr(), msg.len(),
                                 sig.as_ptr()) }, "ks_sm2_verify");
    msg[0] ^= 1;
    if unsafe { ks_sm2_verify(public, id.as_ptr(), id.len(), msg.as_ptr(), msg.len(),
                              sig.as_ptr()) } != KS_ERR_VERIFY_FAILED {
        eprintln!("a changed message verified");
        exit(1);
    }
    unsafe {
        ks_sm2_pubkey_free(public);
        ks_sm2_key_free(key);
    }
    let version = unsafe { CStr::from_ptr(ks_version_string()) }.to_string_lossy();
    println!("kuaisuo {} from Rust: SM3 and SM2 OK", version);
}
