"""The Dask cluster's TLS: the certificates `make dask-certs` makes, and tcp:// refused."""

import os
import stat

import pytest
from cryptography import x509

from grader.dask_tls import make_certificates, refuse_plaintext
from grader.settings import CourseError


def test_the_cluster_certificate_is_signed_by_the_new_authority_and_its_key_is_private(
        tmp_path):
    ca_path, cert_path, key_path = make_certificates(str(tmp_path / "dask-certs"))
    ca = x509.load_pem_x509_certificate(open(ca_path, "rb").read())
    cert = x509.load_pem_x509_certificate(open(cert_path, "rb").read())
    cert.verify_directly_issued_by(ca)  # raises unless ca signed it
    assert ca.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    assert not cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    assert stat.S_IMODE(os.stat(key_path).st_mode) == 0o600


def test_a_tcp_address_is_refused_saying_what_it_exposes_unless_allowed():
    with pytest.raises(CourseError) as refused:
        refuse_plaintext("tcp://grading.example.org:8786", allow_plaintext=False)
    message = str(refused.value)
    assert "is not tls://" in message and "travel unencrypted" in message
    assert "make dask-certs" in message and "--allow-plaintext-dask" in message
    refuse_plaintext("tcp://grading.example.org:8786", allow_plaintext=True)
    refuse_plaintext("tls://grading.example.org:8786", allow_plaintext=False)
