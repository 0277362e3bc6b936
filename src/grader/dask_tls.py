"""TLS for a Dask cluster: a course's own certificate authority and the certificate its
scheduler, workers and grader show each other.

`make dask-certs` (`python -m grader dask-certs`) writes, into dask-certs/ of the
course (or the folder given): ca.pem (the authority, which every process trusts),
cluster.pem and cluster-key.pem (the certificate every process presents, signed
by it). The grader, the scheduler and each worker then accept only peers that
present a certificate of this authority, and everything between them (each
student's notebook, the results) is encrypted. Copy the folder to every machine
of the cluster; cluster-key.pem is readable by its owner only.

`cluster_security` is what the grader connects with; `refuse_plaintext` stops a
tcp:// address unless the instructor allowed it in so many words; `dask_cluster`
is the cluster reached with them, as an executor; the dask-certs command is this
module's too, added to ``python -m grader`` by cli.py.
"""

import argparse
import concurrent.futures
import contextlib
import datetime
import os
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from .settings import CourseError, DaskCluster, check_config

if TYPE_CHECKING:  # distributed imports slowly and is needed only with --scheduler
    from distributed import Security

CA_FILE, CERT_FILE, KEY_FILE = "ca.pem", "cluster.pem", "cluster-key.pem"
VALID_DAYS = 400  # a term and then some; make dask-certs again for the next
TLS_FOLDER = "dask-certs"  # in the course folder, git-ignored
JOBS_IN_FLIGHT_PER_SLOT = 2  # jobs handed out per Dask worker slot, read just in time
CONNECT_SECONDS = 30  # default wait for the scheduler, and then for a first worker


def make_certificates(folder: str, names: DaskCluster | None = None) -> list[str]:
    """A new authority and the cluster's certificate in `folder`, named as `names` (the
    course's c.DaskCluster; its defaults without); returns the files' paths."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    names = names or DaskCluster()
    os.makedirs(folder, exist_ok=True)
    now = datetime.datetime.now(datetime.timezone.utc)
    until = now + datetime.timedelta(days=VALID_DAYS)

    def name(text):
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, text)])

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (x509.CertificateBuilder().subject_name(name(names.authority_name))
          .issuer_name(name(names.authority_name)).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now)
          .not_valid_after(until)
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder().subject_name(name(names.certificate_name))
            .issuer_name(ca.subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now)
            .not_valid_after(until)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .sign(ca_key, hashes.SHA256()))
    paths = [os.path.join(folder, n) for n in (CA_FILE, CERT_FILE, KEY_FILE)]
    key_bytes = key.private_bytes(serialization.Encoding.PEM,
                                  serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption())
    for path, data, mode in ((paths[0], ca.public_bytes(serialization.Encoding.PEM), 0o644),
                             (paths[1], cert.public_bytes(serialization.Encoding.PEM), 0o644),
                             (paths[2], key_bytes, 0o600)):
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        os.chmod(path, mode)
    return paths


def refuse_plaintext(address: str, allow_plaintext: bool) -> None:
    """CourseError for a scheduler address that is not tls:// unless `allow_plaintext`."""
    if address.startswith("tls://") or allow_plaintext:
        return
    raise CourseError(
        f"the Dask scheduler address {address} is not tls://: over it every student's "
        "notebook and every result travel unencrypted, and anyone who can reach the "
        "scheduler's port can run code on the workers and send the grader results. Make "
        "certificates with `make dask-certs`, start the scheduler and workers as "
        "docs/scaling.md shows and use tls://HOST:8786; or, on a network only the course "
        "uses, pass --allow-plaintext-dask to accept that")


def cluster_security(folder: str) -> "Security":
    """The grader's side of the cluster's TLS, from the certificates in `folder`."""
    from distributed import Security

    paths = [os.path.join(folder, n) for n in (CA_FILE, CERT_FILE, KEY_FILE)]
    missing = [p for p in paths if not os.path.isfile(p)]
    if missing:
        raise CourseError(f"the Dask cluster's certificates are missing ({', '.join(missing)}): "
                          "run `make dask-certs` and give the folder to the scheduler and "
                          "the workers too")
    return Security(tls_ca_file=paths[0], tls_client_cert=paths[1], tls_client_key=paths[2],
                    require_encryption=True)


def add_dask_commands(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    certs = commands.add_parser("dask-certs", help="a certificate authority and the "
                                "certificate of the course's Dask cluster (TLS)")
    certs.add_argument("--folder", default=None,
                       help="where to write them (default: dask-certs/ of the course)")


def run_dask_certs(args: argparse.Namespace) -> int:
    folder = args.folder or os.path.join(args.course, TLS_FOLDER)
    for path in make_certificates(folder, DaskCluster(config=check_config(args.course)[0])):
        print(path)
    print("give the folder to the scheduler and every worker (docs/scaling.md: tls://)",
          file=sys.stderr)
    return 0


DASK_COMMANDS = {"dask-certs": run_dask_certs}


@contextlib.contextmanager
def dask_cluster(address: str, wait: float = CONNECT_SECONDS,
                 security: "Security | None" = None) -> Iterator[
        tuple[concurrent.futures.Executor, Callable[[], int], Callable[[], int]]]:
    """(executor, in_flight, slots) on the Dask cluster whose scheduler is at `address`.

    Raises CourseError when the scheduler cannot be reached within `wait`
    seconds, or when no worker has joined it within `wait` seconds more.
    """
    try:
        from distributed import Client
    except ImportError as error:
        raise CourseError(f"--scheduler needs the dask and distributed packages ({error}): "
                          "run `make setup`") from None
    try:
        client = Client(address, timeout=wait, set_as_default=False, security=security)
    except (OSError, TimeoutError, ValueError) as error:
        raise CourseError(
            f"could not reach the Dask scheduler at {address} within {wait:g} s ({error}). "
            "Check that `dask scheduler` is running there, that the address and port are "
            "right (tls://HOST:8786 by default), that it uses the certificates of "
            "`make dask-certs` and that this machine may connect to it") from None
    try:
        try:
            client.wait_for_workers(1, timeout=wait)
        except TimeoutError:
            raise CourseError(
                f"no Dask worker joined the scheduler at {address} within {wait:g} s: start "
                f"workers with `dask worker {address} --nthreads 1 --nworkers N` (and the "
                "--tls-* options of docs/scaling.md) on machines with the course's Python "
                "environment and bubblewrap") from None
        crowded = sorted(w for w, n in client.nthreads().items() if n > 1)
        if crowded:
            print(f"warning: Dask workers with more than one thread grade one student at a "
                  f"time each (start them with --nthreads 1): {', '.join(crowded)}",
                  file=sys.stderr)

        def slots() -> int:
            return sum(client.nthreads().values())

        def in_flight() -> int:
            return JOBS_IN_FLIGHT_PER_SLOT * slots()

        executor = client.get_executor(pure=False)
        yield executor, in_flight, slots
    finally:
        client.close()
