// openai-node's `models.retrieve` and `models.list` against a live gateway.
//   SHOAL_API=http://127.0.0.1:PORT/api/v1 SHOAL_KEY=sk-shoal-… node models.mjs MODEL_ID
// Prints one JSON line: the retrieved model, the listed entry of the same id, and the error
// an unknown id gets ({status, code, type, param}).
import OpenAI from "openai";

const client = new OpenAI({
  baseURL: process.env.SHOAL_API,
  apiKey: process.env.SHOAL_KEY,
  maxRetries: 0,
  timeout: 20_000,
});
const id = process.argv[2];
const model = await client.models.retrieve(id);
let listed = null;
for await (const m of client.models.list()) {
  if (m.id === id) listed = m;
}
let unknown = null;
try {
  await client.models.retrieve("no-such-model");
} catch (e) {
  if (!(e instanceof OpenAI.NotFoundError)) throw e;
  unknown = { status: e.status, code: e.code, type: e.type, param: e.param };
}
console.log(JSON.stringify({ model, listed, unknown }));
