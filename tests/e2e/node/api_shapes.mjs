// openai-node, the AI SDK's default OpenAI provider (the Responses API) and @anthropic-ai/sdk
// against a server answering like Shoal's /api/v1/responses and /api/v1/messages
// (tests/e2e/golden_server.py, or a gateway with the routes).
//   SHOAL_SITE=http://127.0.0.1:PORT SHOAL_KEY=sk-shoal-… node api_shapes.mjs
// SHOAL_PROMPT and SHOAL_TOOL_PROMPT (the one that should make the model call `get_weather`)
// set what is asked. Prints one JSON line of what each client made of the answers.
import Anthropic from "@anthropic-ai/sdk";
import { createOpenAI } from "@ai-sdk/openai";
import { generateObject, generateText, jsonSchema, stepCountIs, streamText, tool } from "ai";
import OpenAI from "openai";

const site = process.env.SHOAL_SITE;
const apiKey = process.env.SHOAL_KEY;
const model = process.env.SHOAL_MODEL ?? "large-27b-uncensored";
const prompt = process.env.SHOAL_PROMPT ?? "hi";
const toolPrompt = process.env.SHOAL_TOOL_PROMPT ?? "Weather in Paris?";
const out = {};

const client = new OpenAI({ baseURL: `${site}/api/v1`, apiKey, maxRetries: 0, timeout: 20_000 });
const events = [];
for await (const e of await client.responses.create({ model, input: prompt, stream: true })) {
  events.push(e);
}
out.openai_stream = {
  first: events[0].type,
  last: events.at(-1).type,
  text: events.filter((e) => e.type === "response.output_text.delta").map((e) => e.delta).join(""),
};
const stream = client.responses.stream({ model, input: prompt });
const final = await stream.finalResponse();
out.openai_final = { text: final.output_text, total_tokens: final.usage.total_tokens };

// The AI SDK 5+ default provider: `openai(id)` is the Responses API.
const openai = createOpenAI({ baseURL: `${site}/api/v1`, apiKey });
const calls = [];
const weather = tool({
  description: "Weather in a city",
  inputSchema: jsonSchema({
    type: "object",
    properties: { city: { type: "string" } },
    required: ["city"],
  }),
  execute: async ({ city }) => `sunny in ${city}`,
});
const generated = await generateText({
  model: openai(model),
  tools: { get_weather: weather },
  stopWhen: stepCountIs(3),
  prompt: toolPrompt,
  maxRetries: 0,
});
for (const step of generated.steps) {
  for (const c of step.toolCalls) calls.push({ toolName: c.toolName, input: c.input });
}
out.ai_generate = { text: generated.text, calls, steps: generated.steps.length };
const streamed = streamText({ model: openai(model), prompt, maxRetries: 0 });
let streamedText = "";
for await (const part of streamed.textStream) streamedText += part;
const usage = await streamed.usage;
out.ai_stream = { text: streamedText, usage: { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens } };
// Structured output the AI SDK's way: a JSON Schema sent as the Responses API's text.format.
const trip = await generateObject({
  model: openai(model),
  schema: jsonSchema({
    type: "object",
    properties: { city: { type: "string", minLength: 3 }, days: { type: "integer", minimum: 2 } },
    required: ["city", "days"],
    additionalProperties: false,
  }),
  prompt,
  maxRetries: 0,
});
out.ai_object = trip.object;

const anthropic = new Anthropic({ baseURL: `${site}/api`, apiKey, maxRetries: 0, timeout: 20_000 });
const ms = anthropic.messages.stream({
  model,
  max_tokens: 64,
  messages: [{ role: "user", content: prompt }],
});
let anthropicText = "";
ms.on("text", (t) => (anthropicText += t));
const message = await ms.finalMessage();
out.anthropic_stream = {
  text: anthropicText,
  input_tokens: message.usage.input_tokens,
  output_tokens: message.usage.output_tokens,
  stop_reason: message.stop_reason,
};

console.log(JSON.stringify(out));
