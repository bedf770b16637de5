// Reads from an OpenAI-compatible server with the official `openai` package, a client servestat did
// not write: one streamed chat completion with usage, one plain chat completion, one streamed
// legacy completion, and a Responses API conversation (a whole response, then a streamed turn that
// continues it through the SDK's stream helper, which rebuilds the response from the events and
// throws on events out of place). Prints what the client saw as one JSON object for
// tests/cli/test_conformance.py.
// Usage: node openai_client.mjs BASE_URL MODEL
import OpenAI from "openai";

const [baseURL, model] = process.argv.slice(2);
const client = new OpenAI({ baseURL: `${baseURL}/v1`, apiKey: "not-needed", maxRetries: 0, timeout: 30000 });
const messages = [{ role: "user", content: "Name three colours of the rainbow." }];

async function streamedChat() {
  const stream = await client.chat.completions.create({
    model, messages, max_tokens: 12, stream: true, stream_options: { include_usage: true },
  });
  let content = "", contentChunks = 0, roleChunks = 0, usage = null, finishReason = null;
  for await (const chunk of stream) {
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices[0];
    if (!choice) continue;
    if (choice.delta.role) roleChunks += 1;
    if (choice.delta.content) { content += choice.delta.content; contentChunks += 1; }
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  return { content, contentChunks, roleChunks, usage, finishReason };
}

async function plainChat() {
  const r = await client.chat.completions.create({ model, messages, max_tokens: 7 });
  return { content: r.choices[0].message.content, usage: r.usage, finishReason: r.choices[0].finish_reason };
}

async function streamedCompletion() {
  const stream = await client.completions.create({ model, prompt: "Once upon a time", max_tokens: 5, stream: true });
  let text = "", chunks = 0;
  for await (const chunk of stream) {
    if (chunk.choices[0]?.text) { text += chunk.choices[0].text; chunks += 1; }
  }
  return { text, chunks };
}

async function responses() {
  const first = await client.responses.create({ model, input: messages[0].content, max_output_tokens: 6 });
  const stream = client.responses.stream({ model, input: "and then?", previous_response_id: first.id,
                                           max_output_tokens: 4 });
  let deltas = 0, deltaText = "";
  stream.on("response.output_text.delta", (e) => { deltas += 1; deltaText += e.delta; });
  const next = await stream.finalResponse();
  const nextText = next.output.flatMap((item) => item.content ?? []).map((part) => part.text).join("");
  return { firstId: first.id, firstText: first.output_text, firstUsage: first.usage, deltas, deltaText,
           nextText, nextUsage: next.usage, nextStatus: next.status, nextPrevious: next.previous_response_id };
}

async function models() {
  const list = await client.models.list();
  return list.data.map((m) => m.id);
}

try {
  const out = { models: await models(), streamed: await streamedChat(), plain: await plainChat(),
                completion: await streamedCompletion(), responses: await responses() };
  process.stdout.write(JSON.stringify(out) + "\n");
} catch (e) {
  process.stderr.write(`openai client failed: ${e}\n`);
  process.exit(1);
}
