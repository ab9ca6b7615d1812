// ReceiptQueue from a Go backend, with the standard library only (net/http, crypto/hmac): submit
// a receipt, wait for the verdict, and verify the webhook that reports it (Standard Webhooks).
//
// Environment (docs/quickstart.md): RECEIPTQ_URL, RECEIPTQ_TOKEN, RECEIPTQ_WEBHOOK_SECRET (whsec_…),
// WEBHOOK_PORT (default 9400; the endpoint's URL is http://127.0.0.1:$WEBHOOK_PORT/webhook), and
// FAKE_APPSTORE_URL (a receiptq-fake-appstore to mint a test receipt; your app sends real ones).
//
//	go run .
package main

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"strings"
	"time"
)

type job struct {
	ID      int64  `json:"id"`
	State   string `json:"state"`
	Verdict string `json:"verdict"`
	Final   bool   `json:"final"`
}

type event struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	Data struct {
		JobID int64 `json:"job_id"`
	} `json:"data"`
}

var client = &http.Client{Timeout: 40 * time.Second}

// call sends one JSON request and decodes the JSON answer into out (problems are JSON too).
func call(method, url string, body any, token string, out any) (*http.Response, error) {
	var payload io.Reader
	if body != nil {
		encoded, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		payload = bytes.NewReader(encoded)
	}
	request, err := http.NewRequest(method, url, payload)
	if err != nil {
		return nil, err
	}
	request.Header.Set("Content-Type", "application/json")
	if token != "" {
		request.Header.Set("Authorization", "Bearer "+token)
	}
	response, err := client.Do(request)
	if err != nil {
		return nil, err
	}
	defer response.Body.Close()
	data, err := io.ReadAll(response.Body)
	if err != nil {
		return nil, err
	}
	if len(data) > 0 && out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return response, fmt.Errorf("HTTP %d: %s", response.StatusCode, data)
		}
	}
	return response, nil
}

func env(name, fallback string) string {
	if value := os.Getenv(name); value != "" {
		return value
	}
	return fallback
}

func fail(format string, arguments ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", arguments...)
	os.Exit(1)
}

func main() {
	api := strings.TrimSuffix(os.Getenv("RECEIPTQ_URL"), "/")
	token := os.Getenv("RECEIPTQ_TOKEN")
	secret := os.Getenv("RECEIPTQ_WEBHOOK_SECRET")
	fake := strings.TrimSuffix(env("FAKE_APPSTORE_URL", "http://127.0.0.1:8787"), "/")

	// The webhook endpoint: verify, then hand the event over.
	events := make(chan event, 16)
	listener, err := net.Listen("tcp", "127.0.0.1:"+env("WEBHOOK_PORT", "9400"))
	if err != nil {
		fail("listen: %v", err)
	}
	go http.Serve(listener, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		if err := VerifyWebhook(secret, r.Header, body, 5*time.Minute, time.Now()); err != nil {
			fmt.Fprintf(os.Stderr, "webhook refused: %v\n", err)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var received event
		if err := json.Unmarshal(body, &received); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		// Deduplicate by received.ID (= webhook-id) with the work it causes, then answer 2xx quickly.
		events <- received
		w.WriteHeader(http.StatusNoContent)
	}))

	// A test receipt from the fake App Store (in production, the app sends its receipt to you).
	n, _ := rand.Int(rand.Reader, big.NewInt(1e15))
	transactionID := env("TRANSACTION_ID", n.String())
	var minted struct {
		ReceiptData string `json:"receipt_data"`
	}
	response, err := call("POST", fake+"/fake/admin/receipts", map[string]any{
		"bundle_id": "com.example.app", "environment": "Production",
		"in_app": []map[string]any{{"transaction_id": transactionID, "original_transaction_id": transactionID,
			"product_id": "coins100", "quantity": 1, "purchase_date_ms": time.Now().UnixMilli()}},
	}, "", &minted)
	if err != nil || response.StatusCode != http.StatusCreated {
		fail("the fake App Store: %v %v", response, err)
	}

	// 1. Submit: 202 means the receipt is committed; Location is where its verdict will be.
	var current job
	response, err = call("POST", api+"/v1/receipts", map[string]any{
		"receipt_data": minted.ReceiptData, "transaction_id": transactionID, "user_id": "go-example-user", "product_id": "coins100",
	}, token, &current)
	if err != nil || (response.StatusCode != http.StatusAccepted && response.StatusCode != http.StatusOK) {
		fail("submit: %v %v", response, err)
	}
	location := response.Header.Get("Location")
	fmt.Printf("submitted: HTTP %d, job %d, %s\n", response.StatusCode, current.ID, location)

	// 2. Wait for the verdict: a long-poll answers as soon as it is final (or after 30 s: ask again).
	for !current.Final {
		response, err = call("GET", api+location+"?wait=30", nil, token, &current)
		if err != nil || response.StatusCode != http.StatusOK {
			fail("status: %v %v", response, err)
		}
	}
	fmt.Printf("verdict: %s (state %s)\n", current.Verdict, current.State)
	if current.Verdict != "delivered" {
		fail("expected delivered, got %+v", current)
	}

	// 3. The same verdict, pushed: a webhook whose signature was checked above.
	timeout := time.After(30 * time.Second)
	for {
		select {
		case received := <-events:
			if received.Data.JobID == current.ID {
				fmt.Printf("webhook verified: %s for job %d (event %s)\n", received.Type, received.Data.JobID, received.ID)
				return
			}
		case <-timeout:
			fail("no webhook for this job within 30 s")
		}
	}
}
