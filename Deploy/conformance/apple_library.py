#!/usr/bin/env python3
"""Apple's own App Store Server Library (Python) against `receiptq-fake-appstore`.

Starts the fake (its own key, issuer, app and test CA), sets purchases up through its admin API,
then calls every AppStoreServerAPIClient method the fake serves and checks each answer as Apple's
library sees it: every signed answer is verified by Apple's SignedDataVerifier with strict chain
checks, trusting only the fake's root (never Apple's), for the fake's bundle id and app id; each
error answer must reach the library as an APIException with Apple's error code.

Prints a table of calls, PASS or FAIL each, and exits 1 on any failure. Run by `./Deploy/dev test`
(which installs app-store-server-library into a virtualenv under the state folder), or by hand:

    python3 Deploy/conformance/apple_library.py --fake-appstore .build/debug/receiptq-fake-appstore --work /tmp/conformance
"""

import argparse
import json
import os
import socket
import subprocess
import sys
import threading
import time
import traceback
import urllib.request
import uuid
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography import x509
from cryptography.hazmat.primitives import serialization

from appstoreserverlibrary.api_client import (APIError, APIException, AppStoreServerAPIClient,
                                              GetTransactionHistoryVersion)
from appstoreserverlibrary.models.ConsumptionRequest import ConsumptionRequest
from appstoreserverlibrary.models.ConsumptionRequestV1 import ConsumptionRequestV1
from appstoreserverlibrary.models.DeliveryStatus import DeliveryStatus
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.models.ExtendReasonCode import ExtendReasonCode
from appstoreserverlibrary.models.ExtendRenewalDateRequest import ExtendRenewalDateRequest
from appstoreserverlibrary.models.MassExtendRenewalDateRequest import MassExtendRenewalDateRequest
from appstoreserverlibrary.models.NotificationHistoryRequest import NotificationHistoryRequest
from appstoreserverlibrary.models.OrderLookupStatus import OrderLookupStatus
from appstoreserverlibrary.models.RefundPreference import RefundPreference
from appstoreserverlibrary.models.Status import Status
from appstoreserverlibrary.models.TransactionHistoryRequest import TransactionHistoryRequest
from appstoreserverlibrary.models.UpdateAppAccountTokenRequest import UpdateAppAccountTokenRequest
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException, VerificationStatus

BUNDLE_ID = "com.example.conformance"
APP_APPLE_ID = 1234567890
KEY_ID = "CONFKEY01"
ISSUER_ID = "conformance-issuer"
DAY_MS = 86_400_000


class Failure(Exception):
    pass


def expect(condition, message):
    if not condition:
        raise Failure(message)


class NotificationSink:
    """A local HTTPS-less endpoint the fake POSTs App Store Server Notifications to."""

    def __init__(self):
        self.payloads = []
        sink = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                try:
                    sink.payloads.append(json.loads(body)["signedPayload"])
                except (ValueError, KeyError):
                    pass
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/notifications"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()


class Fake:
    """`receiptq-fake-appstore` on a free loopback port, and its admin API."""

    def __init__(self, executable, work, notification_url):
        os.makedirs(work, exist_ok=True)
        self.key_path = os.path.join(work, "conformance-key.p8")
        self.root_path = os.path.join(work, "conformance-root.pem")
        for path in (self.key_path, self.root_path):
            if os.path.exists(path):
                os.remove(path)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = open(os.path.join(work, "fake-appstore.log"), "w")
        self.process = subprocess.Popen(
            [executable, "--port", str(self.port), "--latency", "0", "--bundle-id", BUNDLE_ID,
             "--app-apple-id", str(APP_APPLE_ID), "--api-key-out", self.key_path, "--api-key-id", KEY_ID,
             "--issuer-id", ISSUER_ID, "--root-out", self.root_path, "--notification-url", notification_url],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"fake-appstore exited with {self.process.returncode} (log: {self.log.name})")
            if os.path.exists(self.root_path) and os.path.getsize(self.root_path) > 0 and os.path.exists(self.key_path):
                try:
                    urllib.request.urlopen(self.base + "/fake/root.pem", timeout=2).read()
                    break
                except OSError:
                    pass
            time.sleep(0.1)
        else:
            self.stop()
            raise SystemExit(f"fake-appstore did not start within 30 s (log: {self.log.name})")
        with open(self.key_path, "rb") as f:
            self.signing_key = f.read()
        with open(self.root_path, "rb") as f:
            self.root_der = x509.load_pem_x509_certificate(f.read()).public_bytes(serialization.Encoding.DER)

    def admin(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + "/fake/admin/" + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read()
            return json.loads(text) if text else None

    def buy(self, product_id, **fields):
        return self.admin("POST", "purchases", dict(productId=product_id, **fields))

    def client(self, environment, signing_key=None):
        client = AppStoreServerAPIClient(signing_key or self.signing_key, KEY_ID, ISSUER_ID, BUNDLE_ID, environment)
        client._base_url = self.base + ("/production" if environment == Environment.PRODUCTION else "/sandbox")
        return client

    def verifier(self, environment):
        return SignedDataVerifier([self.root_der], False, environment, BUNDLE_ID,
                                  APP_APPLE_ID if environment == Environment.PRODUCTION else None)

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()


def api_error(call):
    """The APIException `call` raises; Failure when it succeeds or raises anything else."""
    try:
        call()
    except APIException as error:
        return error
    raise Failure("expected an APIException, the call succeeded")


def expect_api_error(call, status, code):
    error = api_error(call)
    expect(error.http_status_code == status and error.raw_api_error == int(code),
           f"expected HTTP {status} / {int(code)}, got HTTP {error.http_status_code} / {error.raw_api_error}")
    return f"APIException {status} {code.name if isinstance(code, APIError) else code}"


def run(fake, sink):
    production, sandbox = fake.client(Environment.PRODUCTION), fake.client(Environment.SANDBOX)
    verify, verify_sandbox = fake.verifier(Environment.PRODUCTION), fake.verifier(Environment.SANDBOX)
    now = int(time.time() * 1000)
    token = str(uuid.uuid4())
    coins = fake.buy("com.example.coins", customer="alice", appAccountToken=token, notify=True)
    sword = fake.buy("com.example.sword", type="Non-Consumable", customer="alice", orderId=coins["orderId"])
    monthly = fake.buy("com.example.monthly", type="Auto-Renewable Subscription", customer="alice", expiresInSeconds=30 * 86_400)
    bob_monthly = fake.buy("com.example.monthly", type="Auto-Renewable Subscription", customer="bob", storefront="GBR")
    expired = fake.buy("com.example.weekly", type="Auto-Renewable Subscription", customer="carol",
                       purchaseDate=now - 30 * DAY_MS, expiresInSeconds=7 * 86_400)
    shared = fake.admin("POST", "family-share", {"transactionId": monthly["transactionId"], "customer": "dave"})
    refunded = fake.buy("com.example.gems", customer="alice")
    fake.admin("POST", "refund", {"transactionId": refunded["transactionId"]})
    sandbox_buy = fake.buy("com.example.coins", environment="Sandbox", customer="erin")
    results = []

    def check(name, call):
        try:
            detail = call()
            results.append((name, True, detail or ""))
        except Exception as error:  # a failed check, an unexpected exception, or a refused verification
            message = f"{type(error).__name__}: {error}"
            if not isinstance(error, Failure):
                message += " | " + traceback.format_exc().strip().splitlines()[-2].strip()
            results.append((name, False, message[:300]))

    def transaction_info():
        response = production.get_transaction_info(coins["transactionId"])
        decoded = verify.verify_and_decode_signed_transaction(response.signedTransactionInfo)
        expect(decoded.transactionId == coins["transactionId"] and decoded.appAccountToken == token, "wrong transaction")
        return "signedTransactionInfo verified"
    check("get_transaction_info", transaction_info)

    def sandbox_transaction_info():
        response = sandbox.get_transaction_info(sandbox_buy["transactionId"])
        decoded = verify_sandbox.verify_and_decode_signed_transaction(response.signedTransactionInfo)
        expect(decoded.environment == Environment.SANDBOX, "not a sandbox transaction")
        return "sandbox base URL, verified for Sandbox"
    check("get_transaction_info (sandbox)", sandbox_transaction_info)

    def history(version):
        def call():
            response = production.get_transaction_history(coins["transactionId"], None, TransactionHistoryRequest(), version)
            ids = {verify.verify_and_decode_signed_transaction(s).transactionId for s in response.signedTransactions}
            expect({coins["transactionId"], sword["transactionId"], monthly["transactionId"]} <= ids, f"missing transactions: {ids}")
            expect(response.bundleId == BUNDLE_ID and response.appAppleId == APP_APPLE_ID, "wrong app in the history")
            revoked = production.get_transaction_history(coins["transactionId"], None, TransactionHistoryRequest(revoked=True), version)
            expect([verify.verify_and_decode_signed_transaction(s).transactionId for s in revoked.signedTransactions]
                   == [refunded["transactionId"]], "revoked=True filter not applied")
            return f"{len(ids)} transactions verified; revoked filter"
        return call
    check("get_transaction_history (v1)", history(GetTransactionHistoryVersion.V1))
    check("get_transaction_history (v2)", history(GetTransactionHistoryVersion.V2))

    def statuses():
        response = production.get_all_subscription_statuses(monthly["transactionId"], [Status.ACTIVE])
        items = [item for group in response.data for item in group.lastTransactions]
        expect(len(items) == 1 and items[0].status == Status.ACTIVE, "one active subscription expected")
        verify.verify_and_decode_signed_transaction(items[0].signedTransactionInfo)
        renewal = verify.verify_and_decode_renewal_info(items[0].signedRenewalInfo)
        expect(renewal.originalTransactionId == monthly["transactionId"], "renewal info of another subscription")
        return "signedTransactionInfo and signedRenewalInfo verified"
    check("get_all_subscription_statuses", statuses)

    def refund_history():
        response = production.get_refund_history(coins["transactionId"], None)
        decoded = [verify.verify_and_decode_signed_transaction(s) for s in response.signedTransactions]
        expect([d.transactionId for d in decoded] == [refunded["transactionId"]] and decoded[0].revocationDate, "refund missing")
        return "refunded transaction verified"
    check("get_refund_history", refund_history)

    def look_up_order():
        response = production.look_up_order_id(coins["orderId"])
        expect(response.status == OrderLookupStatus.VALID, f"status {response.rawStatus}")
        ids = sorted(verify.verify_and_decode_signed_transaction(s).transactionId for s in response.signedTransactions)
        expect(ids == sorted([coins["transactionId"], sword["transactionId"]]), f"order holds {ids}")
        missing = production.look_up_order_id("MQNOSUCHORDER")
        expect(missing.status == OrderLookupStatus.INVALID and not missing.signedTransactions, "an unknown order id is not INVALID")
        return "2 transactions of one order verified; unknown order INVALID"
    check("look_up_order_id", look_up_order)

    def consumption_v1():
        warnings.simplefilter("ignore", DeprecationWarning)   # Apple deprecated v1; the fake still serves it, as Apple does
        production.send_consumption_data(coins["transactionId"], ConsumptionRequestV1(customerConsented=True, sampleContentProvided=False))
        reports = [r for r in fake.admin("GET", "consumption") if r["transactionId"] == coins["transactionId"] and r["version"] == 1]
        expect(len(reports) == 1, "the fake did not record the v1 report")
        return "202; recorded as v1"
    check("send_consumption_data (v1)", consumption_v1)

    def consumption_v2():
        request = ConsumptionRequest(customerConsented=True, sampleContentProvided=False, deliveryStatus=DeliveryStatus.DELIVERED,
                                     consumptionPercentage=25_000, refundPreference=RefundPreference.GRANT_PRORATED)
        production.send_consumption_information(coins["transactionId"], request)
        reports = [r for r in fake.admin("GET", "consumption") if r["transactionId"] == coins["transactionId"] and r["version"] == 2]
        expect(len(reports) == 1 and json.loads(reports[0]["body"])["refundPreference"] == "GRANT_PRORATED", "the v2 report differs")
        return "202; recorded as v2 with refundPreference"
    check("send_consumption_information (v2)", consumption_v2)

    def app_account_token():
        new_token = str(uuid.uuid4())
        production.set_app_account_token(monthly["transactionId"], UpdateAppAccountTokenRequest(appAccountToken=new_token))
        info = production.get_transaction_info(monthly["transactionId"])
        expect(verify.verify_and_decode_signed_transaction(info.signedTransactionInfo).appAccountToken == new_token, "token not in signed data")
        status = production.get_all_subscription_statuses(monthly["transactionId"])
        renewal = verify.verify_and_decode_renewal_info(status.data[0].lastTransactions[0].signedRenewalInfo)
        expect(renewal.appAccountToken == new_token, "token not in the renewal info")
        return "token in later signed transaction and renewal info"
    check("set_app_account_token", app_account_token)

    def extend_one():
        before = verify.verify_and_decode_signed_transaction(production.get_transaction_info(monthly["transactionId"]).signedTransactionInfo)
        response = production.extend_subscription_renewal_date(monthly["transactionId"], ExtendRenewalDateRequest(
            extendByDays=10, extendReasonCode=ExtendReasonCode.SERVICE_ISSUE_OR_OUTAGE, requestIdentifier=str(uuid.uuid4())))
        expect(response.success and response.originalTransactionId == monthly["transactionId"], "not a success")
        expect(response.effectiveDate == before.expiresDate + 10 * DAY_MS, f"effectiveDate {response.effectiveDate}")
        after = verify.verify_and_decode_signed_transaction(production.get_transaction_info(monthly["transactionId"]).signedTransactionInfo)
        expect(after.expiresDate == response.effectiveDate, "the signed transaction does not show the new expiry")
        status = production.get_all_subscription_statuses(monthly["transactionId"])
        renewal = verify.verify_and_decode_renewal_info(status.data[0].lastTransactions[0].signedRenewalInfo)
        expect(renewal.renewalDate == response.effectiveDate, "the renewal info does not show the new renewal date")
        return "+10 days in signed transaction and renewal info"
    check("extend_subscription_renewal_date", extend_one)

    request_identifier = str(uuid.uuid4())

    def extend_mass():
        response = production.extend_renewal_date_for_all_active_subscribers(MassExtendRenewalDateRequest(
            extendByDays=3, extendReasonCode=ExtendReasonCode.CUSTOMER_SATISFACTION, requestIdentifier=request_identifier,
            productId="com.example.monthly", storefrontCountryCodes=["GBR"]))
        expect(response.requestIdentifier == request_identifier, "another request identifier")
        after = verify.verify_and_decode_signed_transaction(production.get_transaction_info(bob_monthly["transactionId"]).signedTransactionInfo)
        expect(after.expiresDate == bob_monthly["expiresDate"] + 3 * DAY_MS, "bob's subscription (GBR) was not extended")
        return "GBR subscriber +3 days in signed data"
    check("extend_renewal_date_for_all_active_subscribers", extend_mass)

    def mass_status():
        response = production.get_status_of_subscription_renewal_date_extensions(request_identifier, "com.example.monthly")
        expect(response.complete and response.succeededCount == 1 and response.failedCount == 0,
               f"complete {response.complete}, succeeded {response.succeededCount}, failed {response.failedCount}")
        return "complete, 1 succeeded"
    check("get_status_of_subscription_renewal_date_extensions", mass_status)

    def app_transaction():
        response = production.get_app_transaction_info(coins["transactionId"])
        decoded = verify.verify_and_decode_app_transaction(response.signedAppTransactionInfo)
        expect(decoded.appTransactionId and decoded.bundleId == BUNDLE_ID and decoded.receiptType == Environment.PRODUCTION, "wrong app transaction")
        info = verify.verify_and_decode_signed_transaction(production.get_transaction_info(coins["transactionId"]).signedTransactionInfo)
        expect(info.appTransactionId == decoded.appTransactionId, "transactions carry another appTransactionId")
        return "signedAppTransactionInfo verified"
    check("get_app_transaction_info", app_transaction)

    def app_transaction_as_the_app_gets_it():
        handed = fake.admin("POST", "app-transaction", {"customer": "early-bird", "originalApplicationVersion": "0.9"})
        decoded = verify.verify_and_decode_app_transaction(handed["signedAppTransaction"])
        expect(decoded.originalApplicationVersion == "0.9" and decoded.appTransactionId == handed["appTransactionId"],
               f"the app's AppTransaction says {decoded.originalApplicationVersion}")
        served = verify.verify_and_decode_app_transaction(production.get_app_transaction_info(handed["appTransactionId"]).signedAppTransactionInfo)
        expect(served.originalApplicationVersion == "0.9", "Get App Transaction Info disagrees with the app's AppTransaction")
        return "verified; original version 0.9 in both"
    check("app transaction (the app's, then Get App Transaction Info)", app_transaction_as_the_app_gets_it)

    def finish():
        production.finish_transaction(coins["transactionId"])
        expect_api_error(lambda: production.finish_transaction("9999999999"), 404, APIError.TRANSACTION_ID_NOT_FOUND)
        return "200 with no body; an unknown transaction 404 TRANSACTION_ID_NOT_FOUND"
    check("finish_transaction", finish)

    test_token = {}

    def test_notification():
        test_token["received_before"] = len(sink.payloads)
        test_token["value"] = production.request_test_notification().testNotificationToken
        expect(test_token["value"], "no token")
        return "token issued"
    check("request_test_notification", test_notification)

    def test_notification_status():
        # Wait for the POST to arrive here, then ask Apple's status at its limit (1 request/s).
        deadline = time.time() + 10
        while len(sink.payloads) <= test_token.get("received_before", 0) and time.time() < deadline:
            time.sleep(0.1)
        while True:
            response = production.get_test_notification_status(test_token.get("value", "none"))
            if response.sendAttempts or time.time() > deadline:
                break
            time.sleep(1.1)
        decoded = verify.verify_and_decode_notification(response.signedPayload)
        expect(decoded.rawNotificationType == "TEST", f"type {decoded.rawNotificationType}")
        expect(response.sendAttempts and response.sendAttempts[0].rawSendAttemptResult == "SUCCESS", "not delivered")
        return "TEST payload verified; delivered"
    check("get_test_notification_status", test_notification_status)

    def notification_history():
        response = production.get_notification_history(None, NotificationHistoryRequest(startDate=now - 3_600_000, endDate=int(time.time() * 1000) + 60_000))
        types = sorted({verify.verify_and_decode_notification(item.signedPayload).rawNotificationType for item in response.notificationHistory})
        expect({"ONE_TIME_CHARGE", "SUBSCRIBED", "REFUND", "RENEWAL_EXTENDED", "TEST"} <= set(types), f"types {types}")
        return f"{len(response.notificationHistory)} payloads verified ({', '.join(types)})"
    check("get_notification_history", notification_history)

    def delivered_notifications():
        deadline = time.time() + 10
        while len(sink.payloads) < 6 and time.time() < deadline:
            time.sleep(0.2)
        environments = []
        for payload in list(sink.payloads):
            try:   # each environment's notifications are verified as that environment's
                environments.append(verify.verify_and_decode_notification(payload).data.environment)
            except VerificationException as error:
                if error.status != VerificationStatus.INVALID_ENVIRONMENT:
                    raise
                environments.append(verify_sandbox.verify_and_decode_notification(payload).data.environment)
        expect(len(environments) >= 6 and Environment.SANDBOX in environments, f"{len(environments)} notifications arrived")
        return f"{len(environments)} POSTed notifications verified ({environments.count(Environment.SANDBOX)} sandbox)"
    check("verify_and_decode_notification (delivered)", delivered_notifications)

    # Apple's error answers, as the library raises them.
    check("error: unknown transaction", lambda: expect_api_error(
        lambda: production.get_transaction_info("2999999999999999"), 404, APIError.TRANSACTION_ID_NOT_FOUND))
    check("error: token from another key", lambda: unauthorized(fake))
    check("error: app account token not a UUID", lambda: expect_api_error(
        lambda: production.set_app_account_token(monthly["transactionId"], UpdateAppAccountTokenRequest(appAccountToken="not-a-uuid")),
        400, APIError.INVALID_APP_ACCOUNT_TOKEN_UUID_ERROR))
    check("error: app account token, family shared", lambda: expect_api_error(
        lambda: production.set_app_account_token(shared["transactionId"], UpdateAppAccountTokenRequest(appAccountToken=token)),
        400, APIError.FAMILY_TRANSACTION_NOT_SUPPORTED_ERROR))
    check("error: consumption without consent", lambda: expect_api_error(
        lambda: production.send_consumption_information(coins["transactionId"], ConsumptionRequest(
            customerConsented=False, sampleContentProvided=False, deliveryStatus=DeliveryStatus.DELIVERED)),
        400, APIError.INVALID_CUSTOMER_CONSENTED))
    check("error: consumption percentage on a subscription", lambda: expect_api_error(
        lambda: production.send_consumption_information(monthly["transactionId"], ConsumptionRequest(
            customerConsented=True, sampleContentProvided=False, deliveryStatus=DeliveryStatus.DELIVERED, consumptionPercentage=10_000)),
        400, 4_000_209))
    check("error: extend by 91 days", lambda: expect_api_error(
        lambda: production.extend_subscription_renewal_date(monthly["transactionId"], ExtendRenewalDateRequest(
            extendByDays=91, extendReasonCode=ExtendReasonCode.OTHER, requestIdentifier=str(uuid.uuid4()))),
        400, APIError.INVALID_EXTEND_BY_DAYS))
    check("error: extend an expired subscription", lambda: expect_api_error(
        lambda: production.extend_subscription_renewal_date(expired["transactionId"], ExtendRenewalDateRequest(
            extendByDays=1, extendReasonCode=ExtendReasonCode.OTHER, requestIdentifier=str(uuid.uuid4()))),
        403, APIError.SUBSCRIPTION_EXTENSION_INELIGIBLE))
    check("error: extend a family-shared subscription", lambda: expect_api_error(
        lambda: production.extend_subscription_renewal_date(shared["transactionId"], ExtendRenewalDateRequest(
            extendByDays=1, extendReasonCode=ExtendReasonCode.OTHER, requestIdentifier=str(uuid.uuid4()))),
        403, APIError.FAMILY_SHARED_SUBSCRIPTION_EXTENSION_INELIGIBLE))

    def third_extension():
        # The mass extension above extended bob once; two more single extensions reach Apple's maximum.
        production.extend_subscription_renewal_date(bob_monthly["transactionId"], ExtendRenewalDateRequest(
            extendByDays=1, extendReasonCode=ExtendReasonCode.OTHER, requestIdentifier=str(uuid.uuid4())))
        return expect_api_error(lambda: production.extend_subscription_renewal_date(bob_monthly["transactionId"], ExtendRenewalDateRequest(
            extendByDays=1, extendReasonCode=ExtendReasonCode.OTHER, requestIdentifier=str(uuid.uuid4()))),
            403, APIError.SUBSCRIPTION_MAX_EXTENSION)
    check("error: a third extension within a year", third_extension)
    check("error: unknown mass-extension status", lambda: expect_api_error(
        lambda: production.get_status_of_subscription_renewal_date_extensions(str(uuid.uuid4()), "com.example.monthly"),
        404, APIError.STATUS_REQUEST_NOT_FOUND))

    def rate_limited():
        fake.admin("POST", "faults", {"endpoint": "get_transaction_info", "httpStatus": 429, "errorCode": 4290000, "retryAfterMilliseconds": 1000})
        return expect_api_error(lambda: production.get_transaction_info(coins["transactionId"]), 429, APIError.RATE_LIMIT_EXCEEDED)
    check("error: rate limit (429)", rate_limited)

    def wrong_environment():
        info = production.get_transaction_info(coins["transactionId"])
        try:
            verify_sandbox.verify_and_decode_signed_transaction(info.signedTransactionInfo)
        except VerificationException:
            return "production data refused by a Sandbox verifier"
        raise Failure("a Sandbox verifier accepted production data")
    check("verifier: environment check", wrong_environment)
    return results


def other_key():
    from cryptography.hazmat.primitives.asymmetric import ec
    return ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())


def unauthorized(fake):
    """A token signed by a key the fake does not know: 401, which the library raises without a code."""
    error = api_error(lambda: fake.client(Environment.PRODUCTION, signing_key=other_key()).get_transaction_info("1"))
    expect(error.http_status_code == 401, f"HTTP {error.http_status_code}")
    return "APIException 401"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fake-appstore", required=True, help="the receiptq-fake-appstore executable")
    parser.add_argument("--work", required=True, help="a folder for the fake's key, root and log")
    args = parser.parse_args()
    os.environ["NO_PROXY"] = "127.0.0.1,localhost"
    sink = NotificationSink()
    fake = Fake(args.fake_appstore, args.work, sink.url)
    try:
        results = run(fake, sink)
    finally:
        fake.stop()
        sink.stop()
    width = max(len(name) for name, _, _ in results)
    print(f"{'Apple library call'.ljust(width)}  result  detail")
    for name, passed, detail in results:
        print(f"{name.ljust(width)}  {'PASS' if passed else 'FAIL'}    {detail}")
    failed = sum(1 for _, passed, _ in results if not passed)
    print(f"conformance: {len(results) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
