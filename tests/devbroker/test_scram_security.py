"""ScramSecurity: the server properties and format arguments of a broker with SCRAM users and ACLs enforced.

A broker started with them is exercised in tests/kafka/test_acls.py (each command against enforced ACLs).
"""

from __future__ import annotations

import pytest

from consumer.devbroker import STANDARD_AUTHORIZER, DevBrokerError, LocalBroker, ScramSecurity

SECURITY = ScramSecurity({"admin": "admin-secret", "app": "app-secret"})


def test_the_client_listener_takes_scram_and_the_authorizer_denies_what_no_acl_allows():
    props = SECURITY.properties(port=19092, controller_port=19093)
    assert props["listeners"] == "SASL_PLAINTEXT://127.0.0.1:19092,CONTROLLER://127.0.0.1:19093"
    assert props["listener.security.protocol.map"] == "SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT"
    assert props["authorizer.class.name"] == STANDARD_AUTHORIZER == "org.apache.kafka.metadata.authorizer.StandardAuthorizer"
    assert props["allow.everyone.if.no.acl.found"] == "false"
    assert props["super.users"] == "User:admin;User:ANONYMOUS", "the broker's own requests and the admin's"
    assert props["sasl.enabled.mechanisms"] == props["sasl.mechanism.inter.broker.protocol"] == "SCRAM-SHA-512"
    jaas = props["listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config"]
    assert 'username="admin" password="admin-secret";' in jaas


def test_every_user_gets_a_credential_at_format_time():
    assert SECURITY.scram_arguments() == [
        "--add-scram", "SCRAM-SHA-512=[name=admin,password=admin-secret]",
        "--add-scram", "SCRAM-SHA-512=[name=app,password=app-secret]",
    ]


@pytest.mark.parametrize("password", ["a,b", "a=b", "a]b", 'a"b'])
def test_a_password_the_format_syntax_cannot_carry_is_refused(password):
    with pytest.raises(ValueError, match="hold none of"):
        ScramSecurity({"admin": password}).scram_arguments()


def test_the_admin_needs_a_password():
    with pytest.raises(ValueError, match="admin"):
        ScramSecurity({"app": "x"})


def test_connections_name_the_user_and_hide_the_password():
    connection = SECURITY.connection("127.0.0.1:19092", "app")
    assert (connection.security_protocol, connection.sasl_mechanism, connection.sasl_username) == (
        "SASL_PLAINTEXT", "SCRAM-SHA-512", "app")
    assert "app-secret" not in repr(connection) and "app-secret" not in repr(SECURITY)


def test_a_plain_broker_has_no_users():
    with pytest.raises(DevBrokerError, match="without security"):
        LocalBroker().connection("app")
