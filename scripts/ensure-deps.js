// Installs dependencies when they are missing or older than the lockfile.
// Plain Node on purpose: it runs before anything is installed.
const { execSync } = require('node:child_process');
const { existsSync, statSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const marker = join(root, 'node_modules', '.package-lock.json');
const lock = join(root, 'package-lock.json');
if (!existsSync(marker) || statSync(marker).mtimeMs < statSync(lock).mtimeMs) {
  console.log('[stratus] installing dependencies (npm ci)...');
  execSync('npm ci --no-audit --no-fund', { cwd: root, stdio: 'inherit' });
}
