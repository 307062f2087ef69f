import cluster from 'node:cluster';
import { buildApp, openDatabase, VERSION } from './app';
import { parseCommandLine, runCommand } from './cli';
import { type Config, loadConfig } from '../platform/config';
import { operatorMessage } from './startup-errors';

async function main(argv: string[]): Promise<void> {
  const invocation = parseCommandLine(argv);
  if (invocation.kind === 'help') return void console.log(invocation.text);
  if (invocation.kind === 'version') return void console.log(VERSION);
  if (invocation.kind === 'usage-error') {
    console.error(`${invocation.message}\n\n${invocation.text}`);
    process.exitCode = 2;
    return;
  }
  const config = loadConfig();
  if (invocation.command === 'migrate') {
    const database = await openDatabase(config, 'migrate');
    await database.close();
    console.log('Migrations applied.');
    return;
  }
  if (invocation.command !== 'serve') {
    console.log(await runCommand(config, invocation.command, invocation.args));
    return;
  }
  if (config.workers > 1 && cluster.isPrimary) return superviseWorkers(config);
  await serve(config);
}

async function serve(config: Config): Promise<void> {
  const app = await buildApp(config);
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    const timer = setTimeout(() => {
      app.log.error('graceful shutdown timed out');
      process.exit(1);
    }, 10_000);
    timer.unref();
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  try {
    // The last line of the start: where to open the app.
    await app.listen({ port: config.port, host: config.host, listenTextResolver: (address) => `Tasklane ${VERSION} is ready: open ${address}/ in a browser` });
  } catch (error) {
    // The database is closed (and DATA_DIR released) before the refusal is printed.
    await app.close();
    throw error;
  }
}

/**
 * WORKERS > 1: this process only supervises; the workers share the port (the cluster module hands
 * connections out) and the one PostgreSQL database. Migrations run once here, before any worker starts.
 */
async function superviseWorkers(config: Config): Promise<void> {
  const database = await openDatabase(config);
  await database.close();
  let stopping = false;
  const serving = new Set<number>();
  const startWorker = () => cluster.fork();
  cluster.on('listening', (worker) => serving.add(worker.id));
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit();
      return;
    }
    // A worker that fails before it ever listens (bad config, database down) would fail again: stop.
    if (!serving.has(worker.id)) {
      console.error(`A worker failed to start (exit code ${code ?? signal}); stopping.`);
      stop();
      process.exitCode = 1;
      return;
    }
    console.error(JSON.stringify({ level: 50, time: Date.now(), msg: 'worker died: starting another', pid: worker.process.pid, code, signal }));
    startWorker();
  });
  function stop() {
    if (stopping) return;
    stopping = true;
    // Each worker finishes its in-flight requests, as a single process does on SIGTERM.
    const workers = Object.values(cluster.workers ?? {});
    if (workers.length === 0) process.exit();
    for (const worker of workers) worker?.process.kill('SIGTERM');
  }
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  for (let index = 0; index < config.workers; index += 1) startWorker();
}

main(process.argv.slice(2)).catch((error: unknown) => {
  // An operator's mistake is one line; anything else is a bug and keeps its stack.
  console.error(operatorMessage(error) ?? error);
  process.exit(1);
});
