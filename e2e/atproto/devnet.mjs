// Starts Bluesky's development network (a PLC directory, a PDS, an AppView
// and their helpers, from @atproto/dev-env) on loopback for the Bluesky
// client's tests, prints one JSON line with its URLs on stdout, and runs until
// its standard input closes or it is sent SIGTERM/SIGINT.
//
// It needs DB_POSTGRES_URL, DB_POSTGRES_SCHEMA (a schema name of its own, of
// letters and underscores only: the
// AppView, bsync and ozone make appview_<schema>, bsync_<schema> and
// ozone_<schema>) and REDIS_HOST (host:port), as TestNetwork.create asserts.
import net from 'node:net'

// The dev-env servers call listen(port) without a host, which binds every
// interface; every listener of this process is pinned to loopback instead.
const listen = net.Server.prototype.listen
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'number' || (typeof args[0] === 'string' && /^\d+$/.test(args[0]))) {
    // listen(port[, host][, backlog][, cb]): a host string is replaced, else inserted.
    if (typeof args[1] === 'string') args[1] = '127.0.0.1'
    else args.splice(1, 0, '127.0.0.1')
  } else if (args[0] && typeof args[0] === 'object' && !('fd' in args[0]) && !('path' in args[0])) {
    args[0] = { ...args[0], host: '127.0.0.1' }
  }
  return listen.apply(this, args)
}

for (const name of ['DB_POSTGRES_URL', 'DB_POSTGRES_SCHEMA', 'REDIS_HOST']) {
  if (!process.env[name]) {
    console.error(`devnet: ${name} is unset`)
    process.exit(2)
  }
}

const started = Date.now()
const { TestNetwork } = await import('@atproto/dev-env')
const network = await TestNetwork.create({
  dbPostgresUrl: process.env.DB_POSTGRES_URL,
  dbPostgresSchema: process.env.DB_POSTGRES_SCHEMA,
})

process.stdout.write(
  JSON.stringify({
    pds: network.pds.url,
    appview: network.bsky.url,
    plc: network.plc.url,
    appview_did: network.bsky.ctx.cfg.serverDid,
    start_ms: Date.now() - started,
  }) + '\n',
)

let closing = false
async function stop() {
  if (closing) return
  closing = true
  try {
    await network.close()
  } catch (err) {
    console.error('devnet: close:', err)
  }
  process.exit(0)
}
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
// The Go test holds our standard input: when it exits (even killed), the pipe closes.
process.stdin.on('end', stop)
process.stdin.on('close', stop)
process.stdin.resume()
