"""The tool's RSA key pair and its public key set (JWKS), in course-data/lti/.

    make lti-keys        (python -m grader lti-keys)

``private_key.pem`` is made once, readable by its owner only (0600), and is
never printed, copied into the repository or sent anywhere: it signs the
tool's token requests. ``jwks.json`` is the public half as a JSON Web Key Set,
what the platform is given (pasted, or served at the tool's JWKS URL) to check
those signatures. The key id (``kid``) is the SHA-256 of the public key.
"""

import functools
import hashlib
import json
import os
import stat
from dataclasses import dataclass, field

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from ..files import write_atomically
from .registration import LtiSetupError

PRIVATE_KEY = "private_key.pem"
PUBLIC_KEY = "public_key.pem"
KEY_SET = "jwks.json"


@dataclass(frozen=True)
class ToolKeys:
    """The tool's key pair: the private key's PEM (never shown), the public key's, the kid."""

    private_pem: str = field(repr=False)
    public_pem: str
    kid: str

    def jwks(self) -> dict[str, list[dict[str, str]]]:
        """The public key as a JSON Web Key Set."""
        key = json.loads(RSAAlgorithm.to_jwk(serialization.load_pem_public_key(
            self.public_pem.encode())))
        key.update(kid=self.kid, alg="RS256", use="sig")
        return {"keys": [key]}

    def signing_key(self) -> rsa.RSAPrivateKey:
        """The private key, loaded once in a process (loading checks the RSA key, most of a
        tenth of a second that each signed token request would pay again)."""
        return _loaded_private_key(self.private_pem)


@functools.lru_cache(maxsize=4)
def _loaded_private_key(private_pem: str) -> rsa.RSAPrivateKey:
    key = serialization.load_pem_private_key(private_pem.encode(), password=None)
    if not isinstance(key, rsa.RSAPrivateKey):
        raise LtiSetupError("the tool's private key is not an RSA key: make lti-keys again")
    return key


def key_id(public_pem: str) -> str:
    """The kid of the public key `public_pem`: its SHA-256, 32 hex digits."""
    return hashlib.sha256(public_pem.strip().encode()).hexdigest()[:32]


def make_keys(folder: str) -> tuple[ToolKeys, bool]:
    """(the key pair in `folder`, whether it was made now): made once, never replaced."""
    if os.path.exists(os.path.join(folder, PRIVATE_KEY)):
        return read_keys(folder), False
    os.makedirs(folder, mode=0o700, exist_ok=True)
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private_pem = private.private_bytes(serialization.Encoding.PEM,
                                        serialization.PrivateFormat.PKCS8,
                                        serialization.NoEncryption()).decode()
    public_pem = private.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    descriptor = os.open(os.path.join(folder, PRIVATE_KEY),
                         os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(private_pem)
    keys = ToolKeys(private_pem, public_pem, key_id(public_pem))
    write_atomically(os.path.join(folder, PUBLIC_KEY), public_pem)
    write_atomically(os.path.join(folder, KEY_SET), json.dumps(keys.jwks(), indent=2) + "\n")
    return keys, True


def read_keys(folder: str) -> ToolKeys:
    """The key pair in `folder`; LtiSetupError if there is none (make lti-keys) or the
    private key can be read by others."""
    path = os.path.join(folder, PRIVATE_KEY)
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
        with open(path, encoding="utf-8") as handle:
            private_pem = handle.read()
        with open(os.path.join(folder, PUBLIC_KEY), encoding="utf-8") as handle:
            public_pem = handle.read()
    except OSError as error:
        raise LtiSetupError(f"the tool's key pair in {folder} cannot be read "
                            f"({error.strerror}): make lti-keys") from None
    if mode & 0o077:
        raise LtiSetupError(f"the tool's private key {path} can be read by others (mode "
                            f"{mode:o}): chmod 600 {path}, or make a new pair and register "
                            f"its JWKS again if anyone may have read it")
    return ToolKeys(private_pem, public_pem, key_id(public_pem))
