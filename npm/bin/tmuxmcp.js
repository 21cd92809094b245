#!/usr/bin/env node
'use strict';
// Starts the tmuxmcp binary built for this machine with the same arguments,
// standard input, output and error, and exits as it exits: with its code,
// or by the same signal. The binary is a child, not this process: tmux's
// pipe-pane starts the binary itself (/proc/PID/exe) as the relay of a
// pane's output, never this script.

const fs = require('fs');
const path = require('path');
const { spawn } = require('child_process');
const { target, binaryPath } = require('../lib/platform');

function fail(msg) {
  process.stderr.write(`tmuxmcp (npm launcher): ${msg}\n`);
  process.exit(1);
}

let bin;
try {
  bin = binaryPath(path.join(__dirname, '..'), target(process.platform, process.arch));
} catch (e) {
  fail(e.message);
}
if (!fs.existsSync(bin)) {
  fail(`this package has no ${path.relative(path.join(__dirname, '..'), bin)}: ` +
    'it was packed without the binary for this machine (see "Install" in the README).');
}
try {
  fs.accessSync(bin, fs.constants.X_OK);
} catch (_) {
  try { fs.chmodSync(bin, 0o755); } catch (e) { fail(`${bin} is not executable and could not be made so: ${e.message}`); }
}

// The command a person should give an MCP client is this package's, not
// the binary in npx's cache (which a cache clean removes).
const env = Object.assign({}, process.env, { TMUXMCP_COMMAND: process.env.TMUXMCP_COMMAND || 'npx -y tmuxmcp' });
const child = spawn(bin, process.argv.slice(2), { stdio: 'inherit', env });

// Signals sent to this process (a client stopping the server, ^C in a
// terminal) go to the binary; this process ends when the binary does.
const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2'];
const relay = (sig) => { try { child.kill(sig); } catch (_) { /* already gone */ } };
for (const sig of forwarded) process.on(sig, relay);

child.on('error', (e) => fail(`could not start ${bin}: ${e.message}`));
child.on('exit', (code, signal) => {
  for (const sig of forwarded) process.removeListener(sig, relay);
  if (signal) {
    // End the same way, so whoever started us sees the signal.
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code === null ? 1 : code);
});
