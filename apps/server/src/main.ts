import cluster from 'node:cluster';
import { buildApp, openDatabase } from './app';
import { CLI_COMMANDS, runCli } from './cli';
import { type Config, ConfigError, loadConfig } from './config';

async function main(command = 'serve'): Promise<void> {
  const config = loadConfig();
  if (command === 'migrate') {
    const database = await openDatabase(config);
    await database.close();
    console.log('Migrations applied.');
    return;
  }
  if (await runCli(config, command, process.argv.slice(3))) return;
  if (command !== 'serve') {
    throw new ConfigError(`Unknown command "${command}". Commands: serve (default), migrate, ${CLI_COMMANDS.join(', ')}`);
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
  await app.listen({ port: config.port, host: config.host });
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

main(process.argv[2]).catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
