'use strict';
// The launcher picks the binary Go built for the machine Node runs on, and
// says plainly when there is none. Run: node --test npm/test/ (make test).

const test = require('node:test');
const assert = require('node:assert');
const path = require('path');
const fs = require('fs');
const os = require('os');
const { spawnSync } = require('child_process');
const { target, supported, binaryPath } = require('../lib/platform');

test('each supported machine gets the binary Go built for it', () => {
  assert.strictEqual(target('linux', 'x64'), 'linux-amd64');
  assert.strictEqual(target('linux', 'arm64'), 'linux-arm64');
  assert.strictEqual(target('darwin', 'x64'), 'darwin-amd64');
  assert.strictEqual(target('darwin', 'arm64'), 'darwin-arm64');
  assert.deepStrictEqual(supported(), ['linux/x64', 'linux/arm64', 'darwin/x64', 'darwin/arm64']);
});

test('an unsupported machine is told what is supported', () => {
  assert.throws(() => target('linux', 'ia32'), /no binary for linux\/ia32.*linux\/x64/);
  assert.throws(() => target('freebsd', 'x64'), /no binary for freebsd\/x64/);
});

test('Windows is pointed at WSL', () => {
  assert.throws(() => target('win32', 'x64'), /WSL/);
});

test('the binary lives under vendor/GOOS-GOARCH', () => {
  assert.strictEqual(binaryPath('/pkg', 'linux-arm64'), path.join('/pkg', 'vendor', 'linux-arm64', 'tmuxmcp'));
});

// A package staged in a temporary directory with a shell script in place
// of the binary for this machine: the launcher passes the arguments, the
// exit code and a signal through. Skipped where no binary is built.
function stage(script) {
  let dir;
  try {
    dir = target(process.platform, process.arch);
  } catch (_) {
    return null;
  }
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tmuxmcp-npm-'));
  fs.cpSync(path.join(__dirname, '..', 'bin'), path.join(root, 'bin'), { recursive: true });
  fs.cpSync(path.join(__dirname, '..', 'lib'), path.join(root, 'lib'), { recursive: true });
  const bin = binaryPath(root, dir);
  fs.mkdirSync(path.dirname(bin), { recursive: true });
  fs.writeFileSync(bin, `#!/bin/sh\n${script}\n`, { mode: 0o644 }); // not executable: the launcher fixes that
  return root;
}

test('arguments, output and the exit code pass through the launcher', (t) => {
  const root = stage('printf "%s|" "$@"; exit 7');
  if (!root) return t.skip('no binary is built for this machine');
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const r = spawnSync(process.execPath, [path.join(root, 'bin', 'tmuxmcp.js'), '--version', 'a b'], { encoding: 'utf8' });
  assert.strictEqual(r.stdout, '--version|a b|');
  assert.strictEqual(r.status, 7);
});

test('standard input reaches the binary', (t) => {
  const root = stage('cat');
  if (!root) return t.skip('no binary is built for this machine');
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const r = spawnSync(process.execPath, [path.join(root, 'bin', 'tmuxmcp.js')], { input: '{"jsonrpc":"2.0"}\n', encoding: 'utf8' });
  assert.strictEqual(r.stdout, '{"jsonrpc":"2.0"}\n');
  assert.strictEqual(r.status, 0);
});

test('a binary killed by a signal ends the launcher by the same signal', (t) => {
  const root = stage('kill -TERM $$');
  if (!root) return t.skip('no binary is built for this machine');
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const r = spawnSync(process.execPath, [path.join(root, 'bin', 'tmuxmcp.js')], { encoding: 'utf8' });
  assert.strictEqual(r.signal, 'SIGTERM');
});

test('SIGTERM sent to the launcher reaches the binary', { timeout: 30000 }, async (t) => {
  // The script says it is ready, then waits on its input (which never
  // comes); on TERM it prints and exits 3.
  const root = stage('trap \'echo got-term; exit 3\' TERM; echo ready; read line');
  if (!root) return t.skip('no binary is built for this machine');
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const { spawn } = require('child_process');
  const p = spawn(process.execPath, [path.join(root, 'bin', 'tmuxmcp.js')], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  const done = new Promise((resolve) => p.on('exit', (code, signal) => resolve({ code, signal })));
  await new Promise((resolve) => p.stdout.on('data', (d) => { out += d; if (out.includes('ready')) resolve(); }));
  p.kill('SIGTERM');
  const { code } = await done;
  assert.match(out, /got-term/);
  assert.strictEqual(code, 3);
});

test('a missing binary is reported, not a stack trace', (t) => {
  const root = stage('exit 0');
  if (!root) return t.skip('no binary is built for this machine');
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  fs.rmSync(path.join(root, 'vendor'), { recursive: true });
  const r = spawnSync(process.execPath, [path.join(root, 'bin', 'tmuxmcp.js')], { encoding: 'utf8' });
  assert.strictEqual(r.status, 1);
  assert.match(r.stderr, /has no vendor.*tmuxmcp: it was packed without the binary/);
});
