// Drives pinax through the official TypeScript SDK client (@modelcontextprotocol/sdk v1).
//
//   node ts_client.mjs PLAN_JSON
//
// PLAN_JSON: {"transport": "stdio", "command": "...", "args": [...], "env": {...}}
//         or {"transport": "http", "url": "http://127.0.0.1:PORT/mcp", "token": "..."},
//   plus "calls": [{"name", "arguments", "progress"?: true}], "read": ["pinax://docs", ...].
// Prints one JSON report on stdout. This client validates every structured result against
// the tool's outputSchema (after tools/list) and throws when one does not match, so a
// report that comes back at all means every result passed.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const plan = JSON.parse(process.argv[2]);

function transportFor(plan) {
  if (plan.transport === "stdio") {
    return new StdioClientTransport({
      command: plan.command,
      args: plan.args,
      env: plan.env,
      stderr: "ignore",
    });
  }
  const headers = plan.token ? { Authorization: `Bearer ${plan.token}` } : {};
  return new StreamableHTTPClientTransport(new URL(plan.url), { requestInit: { headers } });
}

const client = new Client({ name: "pinax-ts-test", version: "1.0.0" });
await client.connect(transportFor(plan));

const report = {
  server: client.getServerVersion(),
  capabilities: client.getServerCapabilities(),
  instructions: client.getInstructions(),
  tools: [],
  calls: [],
  resources: [],
  templates: [],
  reads: [],
};

const listed = await client.listTools();
report.tools = listed.tools.map((tool) => ({
  name: tool.name,
  title: tool.title,
  annotations: tool.annotations,
  hasOutputSchema: Boolean(tool.outputSchema),
  properties: Object.keys(tool.inputSchema.properties ?? {}),
}));

for (const call of plan.calls) {
  let progress = 0;
  const options = call.progress
    ? { onprogress: () => (progress += 1), resetTimeoutOnProgress: true }
    : undefined;
  const result = await client.callTool(
    { name: call.name, arguments: call.arguments },
    undefined,
    options,
  );
  report.calls.push({
    name: call.name,
    isError: result.isError ?? false,
    structured: result.structuredContent ?? null,
    text: result.content.map((block) => block.text ?? "").join("\n"),
    progress,
  });
}

report.resources = (await client.listResources()).resources.map((r) => r.uri);
report.templates = (await client.listResourceTemplates()).resourceTemplates.map(
  (t) => t.uriTemplate,
);
for (const uri of plan.read ?? []) {
  const read = await client.readResource({ uri });
  report.reads.push({ uri, text: read.contents[0].text });
}

await client.close();
process.stdout.write(JSON.stringify(report));
