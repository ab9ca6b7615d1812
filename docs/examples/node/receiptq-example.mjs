// ReceiptQueue from a Node backend (18 or later), with Node's built-ins only (fetch, crypto, http):
// submit a receipt, wait for the verdict, and verify the webhook that reports it (Standard Webhooks).
//
// Environment (docs/quickstart.md): RECEIPTQ_URL, RECEIPTQ_TOKEN, RECEIPTQ_WEBHOOK_SECRET (whsec_…),
// WEBHOOK_PORT (default 9400; the endpoint's URL is http://127.0.0.1:$WEBHOOK_PORT/webhook), and
// FAKE_APPSTORE_URL (a receiptq-fake-appstore to mint a test receipt; your app sends real ones).
import { createHmac, timingSafeEqual, randomInt } from "node:crypto";
import { createServer } from "node:http";

const API = process.env.RECEIPTQ_URL.replace(/\/$/, "");
const TOKEN = process.env.RECEIPTQ_TOKEN;
const SECRET = process.env.RECEIPTQ_WEBHOOK_SECRET;
const PORT = Number(process.env.WEBHOOK_PORT ?? 9400);
const FAKE = (process.env.FAKE_APPSTORE_URL ?? "http://127.0.0.1:8787").replace(/\/$/, "");

async function call(method, url, body, token = TOKEN) {
  const headers = { "Content-Type": "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: text ? JSON.parse(text) : null };
}

// --- Verifying a webhook: what your endpoint does with every POST ------------------------------
// The Standard Webhooks check (or use the `standardwebhooks` npm package). `body` must be the raw
// bytes received, before any JSON parsing. Throws if forged.
export function verifyWebhook(secret, headers, body, toleranceSeconds = 300) {
  const id = headers["webhook-id"], timestamp = headers["webhook-timestamp"], signatures = headers["webhook-signature"];
  if (!id || !timestamp || !signatures) throw new Error("missing webhook-id, webhook-timestamp or webhook-signature");
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > toleranceSeconds) throw new Error("timestamp outside the tolerance (a replay?)");
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const expected = createHmac("sha256", key).update(`${id}.${timestamp}.`).update(body).digest();
  // Space-separated: two signatures while the endpoint's secret is being rotated.
  const matches = signatures.split(" ").filter((entry) => entry.startsWith("v1,")).some((entry) => {
    const offered = Buffer.from(entry.slice(3), "base64");
    return offered.length === expected.length && timingSafeEqual(offered, expected);
  });
  if (!matches) throw new Error("no signature matches");
  return JSON.parse(body.toString("utf8"));
}

const received = new Map(); // job id → verified event
const waiting = new Map(); // job id → resolve
const server = createServer((request, response) => {
  const chunks = [];
  request.on("data", (chunk) => chunks.push(chunk));
  request.on("end", () => {
    let event;
    try {
      event = verifyWebhook(SECRET, request.headers, Buffer.concat(chunks));
    } catch (error) {
      console.error(`webhook refused: ${error.message}`);
      response.writeHead(401).end();
      return;
    }
    // Deduplicate by event.id (= webhook-id) with the work it causes, then answer 2xx quickly.
    received.set(event.data?.job_id, event);
    waiting.get(event.data?.job_id)?.(event);
    response.writeHead(204).end();
  });
});
await new Promise((resolve) => server.listen(PORT, "127.0.0.1", resolve));

try {
  // A test receipt from the fake App Store (in production, the app sends its receipt to you).
  const transactionId = process.env.TRANSACTION_ID ?? String(randomInt(1e12, 2 ** 47));
  const minted = await call("POST", `${FAKE}/fake/admin/receipts`, {
    bundle_id: "com.example.app", environment: "Production",
    in_app: [{ transaction_id: transactionId, original_transaction_id: transactionId, product_id: "coins100",
               quantity: 1, purchase_date_ms: Date.now() }],
  }, null);
  if (minted.status !== 201) throw new Error(`the fake App Store answered ${minted.status}: ${JSON.stringify(minted.json)}`);

  // 1. Submit: 202 means the receipt is committed; Location is where its verdict will be.
  const submitted = await call("POST", `${API}/v1/receipts`, {
    receipt_data: minted.json.receipt_data, transaction_id: transactionId, user_id: "node-example-user", product_id: "coins100",
  });
  if (![200, 202].includes(submitted.status)) throw new Error(`submit answered ${submitted.status}: ${JSON.stringify(submitted.json)}`);
  const location = submitted.headers.get("location");
  let job = submitted.json;
  console.log(`submitted: HTTP ${submitted.status}, job ${job.id}, ${location}`);
  const webhook = new Promise((resolve, reject) => {
    if (received.has(job.id)) resolve(received.get(job.id));
    waiting.set(job.id, resolve);
    setTimeout(() => reject(new Error("no webhook for this job within 40 s")), 40_000).unref();
  });

  // 2. Wait for the verdict: a long-poll answers as soon as it is final (or after 30 s: ask again).
  while (!job.final) {
    const status = await call("GET", `${API}${location}?wait=30`);
    if (status.status !== 200) throw new Error(`status answered ${status.status}: ${JSON.stringify(status.json)}`);
    job = status.json;
  }
  console.log(`verdict: ${job.verdict} (state ${job.state})`);
  if (job.verdict !== "delivered") throw new Error(`expected delivered: ${JSON.stringify(job)}`);

  // 3. The same verdict, pushed: a webhook whose signature was checked above.
  const event = await webhook;
  console.log(`webhook verified: ${event.type} for job ${event.data.job_id} (event ${event.id})`);
  server.close();
} catch (error) {
  console.error(error.message);
  server.close();
  process.exit(1);
}
