'use strict';
// A minimal MCP client over stdio for .ci/npm-smoke.sh: starts the command
// it is given, initializes, lists the tools, runs a command in the default
// pane and lists the panes; prints one JSON summary and exits 0 when the
// server answered everything, else says what was missing.
// Usage: node npm-client.js COMMAND [ARGS...]

const { spawn } = require('child_process');

const [cmd, ...args] = process.argv.slice(2);
const server = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'] });
const deadline = setTimeout(() => fail(`no answer within 60 s (waiting for ${waiting})`), 60000);
let waiting = 'initialize';
let buf = '';
const pending = new Map();
let nextId = 1;

function fail(msg) {
  console.error(`npm-client: ${msg}`);
  server.kill('SIGTERM');
  process.exit(1);
}

server.stdout.on('data', (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf('\n')) >= 0) {
    const line = buf.slice(0, i);
    buf = buf.slice(i + 1);
    if (!line.trim()) continue;
    const msg = JSON.parse(line);
    const p = pending.get(msg.id);
    if (p) { pending.delete(msg.id); p(msg); }
  }
});
server.on('exit', (code, signal) => {
  if (waiting !== 'exit') fail(`the server exited (code ${code}, signal ${signal}) while waiting for ${waiting}`);
});

function send(method, params, notify) {
  const msg = { jsonrpc: '2.0', method, params };
  if (notify) { server.stdin.write(JSON.stringify(msg) + '\n'); return null; }
  msg.id = nextId++;
  waiting = method;
  return new Promise((resolve) => {
    pending.set(msg.id, (r) => r.error ? fail(`${method}: ${JSON.stringify(r.error)}`) : resolve(r.result));
    server.stdin.write(JSON.stringify(msg) + '\n');
  });
}

async function call(name, args) {
  const r = await send('tools/call', { name, arguments: args });
  if (r.isError) fail(`${name}: ${r.content.map((c) => c.text).join('\n')}`);
  return r.structuredContent;
}

(async () => {
  const init = await send('initialize', {
    protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'npm-smoke', version: '1' },
  });
  send('notifications/initialized', {}, true);
  const tools = await send('tools/list', {});
  const panes0 = await call('list_panes', {});
  const pane = panes0.panes[0].paneId;
  const run = await call('run_shell_command', { paneId: pane, command: 'echo smoke-$((6*7))' });
  const panes = await call('list_panes', {});
  waiting = 'exit';
  const exited = new Promise((resolve) => server.on('exit', (code, signal) => resolve({ code, signal })));
  server.stdin.end(); // a client that goes away: the server ends
  const end = await exited;
  clearTimeout(deadline);
  console.log(JSON.stringify({
    server: init.serverInfo,
    tools: tools.tools.map((t) => t.name),
    run: { status: run.status, exitCode: run.exitCode, output: run.output },
    panes: panes.panes.map((p) => ({ paneId: p.paneId, ingest: p.ingest, currentCommand: p.currentCommand })),
    exit: end,
  }, null, 1));
})();
