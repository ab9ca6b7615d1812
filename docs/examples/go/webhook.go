package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// VerifyWebhook is the Standard Webhooks check (or use github.com/standard-webhooks/standard-webhooks
// /libraries/go): what your endpoint does with every POST. body must be the raw bytes received,
// before any JSON parsing. It returns an error if the delivery is forged or replayed.
func VerifyWebhook(secret string, headers http.Header, body []byte, tolerance time.Duration, now time.Time) error {
	id, timestamp, signatures := headers.Get("webhook-id"), headers.Get("webhook-timestamp"), headers.Get("webhook-signature")
	if id == "" || timestamp == "" || signatures == "" {
		return errors.New("missing webhook-id, webhook-timestamp or webhook-signature")
	}
	seconds, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return errors.New("webhook-timestamp is not unix seconds")
	}
	if skew := now.Sub(time.Unix(seconds, 0)); skew > tolerance || skew < -tolerance {
		return errors.New("timestamp outside the tolerance (a replay?)")
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return errors.New("the secret is not whsec_ followed by base64")
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + timestamp + "."))
	mac.Write(body)
	expected := mac.Sum(nil)
	// Space-separated: two signatures while the endpoint's secret is being rotated.
	for _, entry := range strings.Split(signatures, " ") {
		if !strings.HasPrefix(entry, "v1,") {
			continue
		}
		if offered, err := base64.StdEncoding.DecodeString(entry[3:]); err == nil && hmac.Equal(offered, expected) {
			return nil
		}
	}
	return errors.New("no signature matches")
}
