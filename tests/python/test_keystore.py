"""kuaisuo.keystore: a directory of encrypted (and, when allowed, plain)
SM2 and Ed25519 keys by id; bad files reported by name without their
bytes; reload replaces the set at once, also on SIGHUP; keys from the
store sign through kuaisuo.batching."""

import asyncio
import json
import logging
import os
import signal

import pytest

import kuaisuo
from kuaisuo import batching
from kuaisuo.ed25519 import Ed25519PrivateKey
from kuaisuo.keystore import Access, KeyStore, token_digest
from kuaisuo.sm2 import SM2PrivateKey
from kuaisuo.x25519 import X25519PrivateKey
from sigcheck import verifies

PASSWORD = "correct horse"
FAST = 2048  # PBKDF2 iterations: enough to exercise the format, quick in tests


def write(directory, name, data):
    path = os.path.join(directory, name)
    with open(path, "w" if isinstance(data, str) else "wb") as f:
        f.write(data)
    return path


@pytest.fixture
def keydir(tmp_path):
    sm2_key, ed_key = SM2PrivateKey.generate(), Ed25519PrivateKey.generate()
    d = str(tmp_path)
    write(d, "gov-signer.pem", sm2_key.to_pem(PASSWORD, scheme="sm4-cbc", iterations=FAST))
    write(d, "node_7.der", ed_key.to_der(PASSWORD, iterations=FAST))
    write(d, "plain.pem", SM2PrivateKey.generate().to_pem())
    write(d, "x25519.pem", X25519PrivateKey.generate().to_pem(PASSWORD, iterations=FAST))
    write(d, "wrong-pass.pem", sm2_key.to_pem("other", iterations=FAST))
    write(d, "garbage.pem", "-----BEGIN PRIVATE KEY-----\nnot base64!\n-----END PRIVATE KEY-----\n")
    write(d, "bad id!.pem", sm2_key.to_pem(PASSWORD, iterations=FAST))
    write(d, "README.txt", "not a key file")
    return d, sm2_key, ed_key


def test_loads_encrypted_keys_and_names_the_files_that_fail(keydir):
    d, sm2_key, ed_key = keydir
    store = KeyStore(d, PASSWORD)
    errors = {e.file: e.reason for e in store.load()}
    assert store.ids() == ["gov-signer", "node_7"]
    assert store.algorithm("gov-signer") == "sm2" and store.algorithm("node_7") == "ed25519"
    assert store.get("gov-signer").private_bytes_raw() == sm2_key.private_bytes_raw()
    assert store.get("node_7").private_bytes_raw() == ed_key.private_bytes_raw()
    assert store.get("missing") is None and store.algorithm("missing") is None
    assert set(errors) == {"plain.pem", "x25519.pem", "wrong-pass.pem", "garbage.pem",
                           "bad id!.pem"}
    assert "not encrypted" in errors["plain.pem"]
    assert "code -33" in errors["x25519.pem"]  # a key of another algorithm
    assert "code -50" in errors["wrong-pass.pem"]
    # Nothing secret in what the store says about itself.
    text = repr(store) + "".join(errors.values())
    assert sm2_key.private_bytes_raw().hex() not in text and PASSWORD not in text


def test_sm4_key_files_load_by_id(tmp_path):
    """SM4 keys sit in the same directory, encrypted at rest as GmSSL's
    scheme (PBKDF2-HMAC-SM3, SM4-CBC) writes; an SM4 file with a wrong
    passphrase is named like any other."""
    from kuaisuo.sm4 import SM4Key

    key = SM4Key.generate()
    d = str(tmp_path)
    write(d, "vault.pem", key.to_pem(PASSWORD, scheme="sm4-cbc", iterations=FAST))
    write(d, "vault2.der", key.to_der("other", iterations=FAST))
    write(d, "plain-sm4.pem", key.to_pem())
    store = KeyStore(d, PASSWORD)
    errors = {e.file: e.reason for e in store.load()}
    assert store.ids() == ["vault"] and store.algorithm("vault") == "sm4"
    assert store.get("vault").to_bytes() == key.to_bytes()
    assert "code -50" in errors["vault2.der"] and "not encrypted" in errors["plain-sm4.pem"]
    assert key.to_bytes().hex() not in repr(store) + "".join(errors.values())


def test_plain_keys_when_allowed(keydir):
    d, _, _ = keydir
    store = KeyStore(d, PASSWORD, allow_plain=True)
    store.load()
    assert "plain" in store.ids() and len(store) == 3


def test_reload_replaces_the_set(keydir):
    d, _, _ = keydir
    store = KeyStore(d, PASSWORD)
    store.load()
    os.remove(os.path.join(d, "node_7.der"))
    added = Ed25519PrivateKey.generate()
    write(d, "added.pem", added.to_pem(PASSWORD, iterations=FAST))
    store.reload()
    assert store.ids() == ["added", "gov-signer"]
    assert store.get("added").public_key() == added.public_key()


def test_reload_on_sighup_and_sign_through_the_batcher(keydir):
    d, sm2_key, _ = keydir
    store = KeyStore(d, PASSWORD)
    store.load()
    late = SM2PrivateKey.generate()
    digest = os.urandom(32)

    async def main():
        loop = asyncio.get_running_loop()
        store.reload_on_signal(loop, signal.SIGHUP)
        write(d, "late.pem", late.to_pem(PASSWORD, iterations=FAST))
        os.kill(os.getpid(), signal.SIGHUP)
        for _ in range(100):
            if store.get("late") is not None:
                break
            await asyncio.sleep(0.01)
        loop.remove_signal_handler(signal.SIGHUP)
        batcher = batching.Batcher(kuaisuo.Context(backend="cpu"), max_delay=0.01)
        replies = await asyncio.gather(
            batcher.submit(batching.SM2_SIGN_DIGESTS, store.get("late"), [digest]),
            batcher.submit(batching.SM2_SIGN_DIGESTS, store.get("gov-signer"), [digest]))
        await batcher.close()
        return replies

    [[(s1, sig1)], [(s2, sig2)]] = asyncio.run(main())
    assert s1 == s2 == 0
    assert verifies(late.public_key().verify_digest, sig1, digest)
    assert verifies(sm2_key.public_key().verify_digest, sig2, digest)


def test_unreadable_directory_raises(tmp_path):
    with pytest.raises(OSError):
        KeyStore(str(tmp_path / "absent"), PASSWORD).load()


def test_access_by_token_digest(tmp_path):
    path = tmp_path / "access.json"
    path.write_text(json.dumps({"tokens": {token_digest("alice-token"): ["gov-signer"],
                                           token_digest(b"ops"): ["*"]}}))
    access = Access.from_file(path)
    assert access.allowed("alice-token", "gov-signer")
    assert not access.allowed("alice-token", "node_7")
    assert access.allowed("ops", "node_7") and access.allowed(b"ops", "anything")
    assert not access.allowed("mallory", "gov-signer")
    assert "alice" not in repr(access) and "alice" not in path.read_text()


@pytest.mark.parametrize("doc", ['{"tokens": {"abc": ["k"]}}', '{"tokens": []}', "[1]",
                                 "not json", '{"tokens": {"%s": "k"}}' % ("0" * 64)])
def test_access_file_errors_are_clear(tmp_path, doc):
    path = tmp_path / "access.json"
    path.write_text(doc)
    with pytest.raises(ValueError, match="access"):
        Access.from_file(path)


def test_sighup_reload_derives_keys_off_the_event_loop(tmp_path, caplog):
    """issue 42: SIGHUP's reload of slow encrypted keys (PBKDF2 at 300,000
    iterations, about a second for four files here) runs on a thread: the
    event loop keeps turning (no gap over 0.3 s) and requests see the old
    set until the new one is swapped in whole. A reload that fails (the
    directory gone) keeps the set, and says so in one line."""
    d = tmp_path / "keys"
    d.mkdir()
    write(str(d), "old.pem", SM2PrivateKey.generate().to_pem(PASSWORD, iterations=FAST))
    store = KeyStore(str(d), PASSWORD)
    store.load()
    slow = SM2PrivateKey.generate().to_pem(PASSWORD, iterations=300_000)
    for i in range(4):
        write(str(d), f"slow{i}.pem", slow)

    async def reload_and_watch():
        loop = asyncio.get_running_loop()
        store.reload_on_signal(loop, signal.SIGHUP)
        gaps, sizes = [], []
        try:
            os.kill(os.getpid(), signal.SIGHUP)
            start = last = loop.time()
            while len(store) != 5 and loop.time() - start < 20:
                await asyncio.sleep(0.01)
                gaps.append(loop.time() - last)
                last = loop.time()
                sizes.append(len(store))
        finally:
            loop.remove_signal_handler(signal.SIGHUP)
        return gaps, sizes

    gaps, sizes = asyncio.run(reload_and_watch())
    assert sizes[-1] == 5 and set(sizes) == {1, 5}  # the old set, then the whole new one
    assert sizes.count(1) > 10  # the reload took a while: the loop went on meanwhile
    assert max(gaps) < 0.3, max(gaps)

    os.rename(d, tmp_path / "gone")
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="kuaisuo.keystore"):
        async def failed_reload():
            loop = asyncio.get_running_loop()
            store.reload_on_signal(loop, signal.SIGHUP)
            try:
                os.kill(os.getpid(), signal.SIGHUP)
                for _ in range(200):
                    if caplog.records:
                        break
                    await asyncio.sleep(0.01)
            finally:
                loop.remove_signal_handler(signal.SIGHUP)
        asyncio.run(failed_reload())
    assert len(store) == 5 and store.get("slow0") is not None
    assert [r.getMessage().startswith("key reload failed, keeping the 5 keys") and not r.exc_info
            for r in caplog.records] == [True]
