// The system under test for the browser tests: a fresh Postgres database, the
// real web binary built from this repository, the seed data, and a headless
// Chromium. Everything is torn down by stop(), even after a failed start.
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { chromium } from 'playwright-core';

const execFileAsync = promisify(execFile);

export const FRONTEND = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const REPO = resolve(FRONTEND, '..');
export const DIST = join(FRONTEND, 'dist');
export const SCREENSHOTS = join(FRONTEND, 'screenshots');
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const ADMIN_USERNAME = 'admin';
export const ADMIN_PASSWORD = 'e2e-brimstone-' + randomBytes(4).toString('hex');
/** How long a claim on a Redis database outlives a crashed run. */
const REDIS_CLAIM_SECONDS = '1800';

function requireEnv(name, example) {
  const value = process.env[name];
  if (!value) {
    throw new Error(
      `${name} is not set. The browser tests need it to reach a real server ` +
        `(e.g. ${name}=${example}); scripts/test.sh provides it.`,
    );
  }
  return value;
}

/** Runs one SQL command with psql against url and returns its unaligned, tuples-only output. */
export function psql(url, sql) {
  return execFileSync('psql', [url, '-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-c', sql], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}

function freePort() {
  return new Promise((res, rej) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => res(port));
    });
  });
}

/**
 * Sends commands to one Redis database with a minimal RESP client and
 * returns the first line of each reply ("+OK", ":0", "$-1", "-ERR ...").
 */
function redis(redisUrl, db, commands) {
  const u = new URL(redisUrl);
  const cmd = (args) => `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;
  const all = [];
  if (u.password) {
    all.push(u.username ? ['AUTH', decodeURIComponent(u.username), decodeURIComponent(u.password)] : ['AUTH', decodeURIComponent(u.password)]);
  }
  all.push(['SELECT', String(db)], ...commands, ['QUIT']);
  return new Promise((res, rej) => {
    const sock = net.connect({ host: u.hostname, port: Number(u.port || 6379) });
    let reply = '';
    sock.setTimeout(5000, () => sock.destroy(new Error('redis: timeout')));
    sock.on('connect', () => sock.write(all.map(cmd).join('')));
    sock.on('data', (d) => (reply += d));
    sock.on('error', rej);
    sock.on('close', () => {
      const lines = reply.split('\r\n').filter(Boolean);
      const failed = lines.find((l) => l.startsWith('-'));
      if (failed) rej(new Error(`redis: ${failed}`));
      else res(lines.slice(all.length - commands.length - 1, all.length - 1));
    });
  });
}

const claimKey = (db) => `infernal:test:claim:${db}`;

/**
 * Claims a Redis database for this run, the way the Go tests do (a key in
 * database 0): only one found empty is taken, so nobody's data is touched.
 */
async function claimRedisDb(redisUrl, owner) {
  for (let attempt = 0; attempt < 100; attempt++) {
    for (let db = 1; db < 16; db++) {
      const [claimed] = await redis(redisUrl, 0, [['SET', claimKey(db), owner, 'NX', 'EX', REDIS_CLAIM_SECONDS]]);
      if (claimed !== '+OK') continue;
      const [size] = await redis(redisUrl, db, [['DBSIZE']]);
      // Not empty, so not ours to use; the claim lapses on its own.
      if (size === ':0') return db;
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error('no empty Redis database could be claimed');
}

/** Empties the claimed database and gives the claim back. */
async function releaseRedisDb(redisUrl, db) {
  await redis(redisUrl, db, [['FLUSHDB']]);
  await redis(redisUrl, 0, [['DEL', claimKey(db)]]);
}

async function waitReady(baseURL, server, logFile) {
  const deadline = Date.now() + 60_000;
  let last = '';
  while (Date.now() < deadline) {
    if (server.exitCode !== null) {
      throw new Error(`web binary exited with ${server.exitCode} before it was ready:\n${tail(logFile)}`);
    }
    try {
      const res = await fetch(`${baseURL}/readyz`);
      if (res.status === 200) return;
      last = `${res.status} ${await res.text()}`;
    } catch (err) {
      last = String(err);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`web binary not ready after 60 s (last answer: ${last}):\n${tail(logFile)}`);
}

function tail(file, lines = 40) {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** A 1×1 PNG, what the media stand-in serves for every image. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==', 'base64');

/**
 * Starts a stand-in of the platforms' media hosts: https on 127.0.0.1 with
 * a certificate made for the run (the browser contexts that load from it
 * ignore its issuer), answering every path with a PNG and recording each
 * request's path and Referer. Returns { host, base, requests, close() }.
 */
async function startMediaHost(tmp) {
  const key = join(tmp, 'media-key.pem');
  const cert = join(tmp, 'media-cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  const requests = [];
  const srv = https.createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    requests.push({ path: req.url, referer: req.headers.referer ?? '' });
    res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': PNG.length });
    res.end(PNG);
  });
  await new Promise((res, rej) => {
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', res);
  });
  const host = `127.0.0.1:${srv.address().port}`;
  return { host, base: `https://${host}`, requests, close: () => new Promise((r) => srv.close(r)) };
}

/**
 * Starts everything. Returns { baseURL, db(sql), browser, media, stop() }.
 * stop() is safe to call whatever point the start reached.
 */
export async function startStack() {
  const adminDbUrl = requireEnv('TEST_DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable');
  const redisBase = requireEnv('TEST_REDIS_URL', 'redis://127.0.0.1:6379/0');

  const tmp = mkdtempSync(join(tmpdir(), 'infernal-e2e-'));
  const dbName = `e2e_${randomBytes(6).toString('hex')}`;
  const dbUrl = new URL(adminDbUrl);
  dbUrl.pathname = `/${dbName}`;
  const redisUrl = new URL(redisBase);
  const logFile = join(tmp, 'web.log');

  const state = { tmp, dbCreated: false, redisDb: 0, server: null, browser: null, media: null };
  const stack = {
    baseURL: '',
    dbUrl: dbUrl.toString(),
    logFile,
    db: (sql) => psql(dbUrl.toString(), sql),
    /** Runs Redis commands on the stack's database; one simple reply line per command. */
    redis: (commands) => redis(redisBase, state.redisDb, commands),
    browser: null,
    /** The media hosts' stand-in, the one host of MEDIA_HOSTS. */
    media: null,
    async stop() {
      if (state.browser) await state.browser.close().catch(() => {});
      if (state.media) await state.media.close();
      if (state.server && state.server.exitCode === null) {
        const exited = new Promise((r) => state.server.once('exit', r));
        state.server.kill('SIGTERM');
        const timer = setTimeout(() => state.server.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      if (state.dbCreated) {
        try {
          psql(adminDbUrl, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
        } catch (err) {
          console.error(`could not drop ${dbName}: ${err.stderr || err}`);
        }
      }
      if (state.redisDb) {
        await releaseRedisDb(redisBase, state.redisDb).catch((err) => console.error(`could not release Redis db ${state.redisDb}: ${err}`));
      }
      rmSync(tmp, { recursive: true, force: true });
    },
  };

  try {
    if (!existsSync(join(DIST, 'index.html'))) {
      console.log('# dist/ missing: running npm run build');
      execFileSync('npm', ['run', 'build'], { cwd: FRONTEND, stdio: ['ignore', 'inherit', 'inherit'] });
    }
    if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM} (apt-get install chromium)`);

    const bin = join(tmp, 'web');
    const build = execFileAsync('go', ['build', '-o', bin, './cmd/web'], { cwd: REPO, maxBuffer: 16 << 20 }).catch(
      (err) => {
        throw new Error(`go build ./cmd/web failed:\n${err.stderr || err}`);
      },
    );

    psql(adminDbUrl, `CREATE DATABASE ${dbName}`);
    state.dbCreated = true;
    state.redisDb = await claimRedisDb(redisBase, `e2e-${process.pid}-${dbName}`);
    redisUrl.pathname = `/${state.redisDb}`;
    await build;

    state.media = await startMediaHost(tmp);
    stack.media = state.media;
    const port = await freePort();
    stack.baseURL = `http://127.0.0.1:${port}`;
    const log = createWriteStream(logFile);
    state.server = spawn(bin, [], {
      cwd: REPO,
      env: {
        ...process.env,
        DATABASE_URL: dbUrl.toString(),
        REDIS_URL: redisUrl.toString(),
        HTTP_ADDR: `127.0.0.1:${port}`,
        ADMIN_USERNAME,
        ADMIN_PASSWORD,
        STATIC_DIR: DIST,
        PLATFORM: 'sandbox',
        MEDIA_HOSTS: state.media.host,
        WRITER: 'offline',
        PERSONA_HANDLE: 'infernal_ai',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    state.server.stdout.pipe(log);
    state.server.stderr.pipe(log);
    await waitReady(stack.baseURL, state.server, logFile);

    execFileSync('psql', [dbUrl.toString(), '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-f', join(FRONTEND, 'e2e', 'seed.sql')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });

    state.browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    stack.browser = state.browser;
    return stack;
  } catch (err) {
    await stack.stop();
    throw err;
  }
}

/**
 * The stack of one test file: started before the file's tests and stopped
 * after them. Returns { stack, pageErrors }: stack stands for the started
 * stack (reading it before the tests run throws), pageErrors collects the
 * pages' uncaught errors for noUncaughtErrors.
 */
export function fileStack() {
  let started = null;
  before(async () => {
    started = await startStack();
  }, { timeout: 900_000 });
  after(async () => {
    if (started) await started.stop();
  });
  const stack = new Proxy(
    {},
    {
      get(_, name) {
        if (!started) throw new Error(`the stack is read (${String(name)}) before the file's tests run`);
        return started[name];
      },
    },
  );
  return { stack, pageErrors: [] };
}

/** The file's last test: no page threw an uncaught error. Call it after the file's other tests. */
export function noUncaughtErrors(pageErrors) {
  describe('uncaught errors', () => {
    it('no page threw an uncaught error', () => {
      assert.deepEqual(pageErrors, []);
    });
  });
}
