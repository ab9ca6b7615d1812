#!/usr/bin/env python3
"""Apple's own App Store Server Library (Python) judges ReceiptQueue's offer signatures.

Reads a JSON file of cases the API signed (`OfferSignatureTests` writes it: the test key, its
issuer, and each case's inputs and answer) and checks each as Apple's library sees it:

- promotional_offer (StoreKit 1): Apple's PromotionalOfferSignatureCreator is run on the same
  inputs with a key that records the text it is asked to sign; our signature must verify over
  exactly that text with the key's public half (ECDSA P-256, SHA-256, DER).
- promotional_offer_v2, introductory_offer_eligibility, advanced_commerce_in_app (StoreKit 2):
  our JWS must verify with the public key for its audience (PyJWT, as Apple's library signs with
  it), and carry the same header and claims as Apple's creator makes for the same inputs, but for
  `iat` and `nonce` (fresh each time; ours must be a UUID and a time near now).

Prints one line per case, PASS or FAIL, and exits 1 on any failure.

    python3 Deploy/conformance/apple_offer_signatures.py cases.json
"""

import base64
import json
import sys
import time
import uuid

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ec import ECDSA
from cryptography.hazmat.primitives.hashes import SHA256

from appstoreserverlibrary.jws_signature_creator import (AdvancedCommerceAPIInAppRequest, AdvancedCommerceAPIInAppSignatureCreator,
                                                         IntroductoryOfferEligibilitySignatureCreator, PromotionalOfferV2SignatureCreator)
from appstoreserverlibrary.promotional_offer import PromotionalOfferSignatureCreator


class RecordingKey:
    """Stands in for the private key inside Apple's creator: keeps the bytes it is asked to sign."""

    def __init__(self):
        self.signed = None

    def sign(self, data, algorithm):
        self.signed = data
        return b""


def apple_promotional_offer_text(key_pem, key_id, bundle_id, answer):
    creator = PromotionalOfferSignatureCreator(key_pem, key_id, bundle_id)
    recorder = RecordingKey()
    creator._signing_key = recorder
    creator.create_signature(answer["product_id"], answer["offer_id"], answer["application_username"],
                             uuid.UUID(answer["nonce"]), answer["timestamp"])
    return recorder.signed


class Request(AdvancedCommerceAPIInAppRequest):
    """An Advanced Commerce request as Apple's creator takes it (cattrs unstructures attributes)."""


def apple_jws(key_pem, key_id, issuer_id, bundle_id, case):
    answer, kind = case["answer"], case["answer"]["type"]
    if kind == "promotional_offer_v2":
        creator = PromotionalOfferV2SignatureCreator(key_pem, key_id, issuer_id, bundle_id)
        return creator.create_signature(answer["product_id"], answer["offer_id"], answer.get("transaction_id")), "promotional-offer"
    if kind == "introductory_offer_eligibility":
        creator = IntroductoryOfferEligibilitySignatureCreator(key_pem, key_id, issuer_id, bundle_id)
        return (creator.create_signature(answer["product_id"], answer["allow_introductory_offer"], answer["transaction_id"]),
                "introductory-offer-eligibility")
    if kind == "advanced_commerce_in_app":
        creator = AdvancedCommerceAPIInAppSignatureCreator(key_pem, key_id, issuer_id, bundle_id)
        # Apple's creator base64-encodes json.dumps of the request; compare the decoded objects.
        import appstoreserverlibrary.jws_signature_creator as module
        original = module._get_cattrs_converter
        module._get_cattrs_converter = lambda _type: type("Plain", (), {"unstructure": staticmethod(lambda _: case["request"])})
        try:
            return creator.create_signature(Request()), "advanced-commerce-api"
        finally:
            module._get_cattrs_converter = original
    raise ValueError(f"unknown type {kind}")


def check(case, key_pem, public_key, key_id, issuer_id):
    answer = case["answer"]
    kind, bundle_id = answer["type"], answer["bundle_id"]
    if answer["key_id"] != key_id:
        return f"key_id {answer['key_id']} is not the key's {key_id}"
    if kind == "promotional_offer":
        text = apple_promotional_offer_text(key_pem, key_id, bundle_id, answer)
        try:
            public_key.verify(base64.b64decode(answer["signature"]), text, ECDSA(SHA256()))
        except Exception as error:  # InvalidSignature carries no message
            return f"the signature does not verify over the text Apple's library signs ({type(error).__name__})"
        if abs(answer["timestamp"] / 1000 - time.time()) > 600:
            return f"timestamp {answer['timestamp']} is not now"
        return None
    apple, audience = apple_jws(key_pem, key_id, issuer_id, bundle_id, case)
    try:
        ours = jwt.decode(answer["signature"], public_key, algorithms=["ES256"], audience=audience)
    except jwt.PyJWTError as error:
        return f"PyJWT refuses our JWS: {error}"
    theirs = jwt.decode(apple, public_key, algorithms=["ES256"], audience=audience)
    if jwt.get_unverified_header(answer["signature"]) != jwt.get_unverified_header(apple):
        return f"header {jwt.get_unverified_header(answer['signature'])} is not Apple's {jwt.get_unverified_header(apple)}"
    for claims in (ours, theirs):
        uuid.UUID(claims.pop("nonce"))
        if abs(claims.pop("iat") - time.time()) > 600:
            return "iat is not now"
    if kind == "advanced_commerce_in_app":
        ours["request"] = json.loads(base64.b64decode(ours["request"]))
        theirs["request"] = json.loads(base64.b64decode(theirs["request"]))
    if ours != theirs:
        return f"claims {ours} are not Apple's {theirs}"
    return None


def main():
    with open(sys.argv[1]) as file:
        cases = json.load(file)
    key_pem = cases["key_pem"].encode()
    public_key = serialization.load_pem_private_key(key_pem, password=None).public_key()
    failures = 0
    for case in cases["cases"]:
        try:
            problem = check(case, key_pem, public_key, cases["key_id"], cases["issuer_id"])
        except Exception as error:
            problem = f"{type(error).__name__}: {error}"
        print(f"{'PASS' if problem is None else 'FAIL'}  {case['name']}" + ("" if problem is None else f": {problem}"))
        failures += problem is not None
    print(f"{len(cases['cases']) - failures} of {len(cases['cases'])} offer signatures accepted by Apple's library")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
