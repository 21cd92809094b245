'use strict';
// Sets an assembled npm package's version and the machines it installs on
// (make dist): node npm/stamp.js PACKAGE.JSON VERSION GOOS/GOARCH...
// VERSION is the Go one (v0.1.0, v0.0.0-20261203182619-6e9df4d7b1dc+dirty);
// npm's is the same without the v (npm drops the +dirty build metadata).

const fs = require('fs');

const [file, version, ...platforms] = process.argv.slice(2);
const semver = /^v(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)(?:\+[0-9A-Za-z.-]+)?$/;
const m = semver.exec(version || '');
if (!file || !m || platforms.length === 0) {
  console.error(`usage: node npm/stamp.js package.json vMAJOR.MINOR.PATCH[-PRE] GOOS/GOARCH... (got version ${JSON.stringify(version)})`);
  process.exit(2);
}
const NODE_OS = { linux: 'linux', darwin: 'darwin' };
const NODE_CPU = { amd64: 'x64', arm64: 'arm64' };
const os = new Set();
const cpu = new Set();
for (const p of platforms) {
  const [g, a] = p.split('/');
  if (!NODE_OS[g] || !NODE_CPU[a]) {
    console.error(`stamp.js: no Node name for ${p}: the launcher knows ${Object.keys(NODE_OS).join(', ')} on ${Object.keys(NODE_CPU).join(', ')}`);
    process.exit(2);
  }
  os.add(NODE_OS[g]);
  cpu.add(NODE_CPU[a]);
}
const pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
pkg.version = m[1];
pkg.os = [...os];
pkg.cpu = [...cpu];
fs.writeFileSync(file, JSON.stringify(pkg, null, 2) + '\n');
