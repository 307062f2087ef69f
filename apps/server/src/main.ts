import { buildApp, openDatabase } from './app';
import { ConfigError, loadConfig } from './config';

async function main(command = 'serve'): Promise<void> {
  const config = loadConfig();
  if (command === 'migrate') {
    const database = await openDatabase(config);
    await database.close();
    console.log('Migrations applied.');
    return;
  }
  if (command !== 'serve') throw new ConfigError(`Unknown command "${command}". Commands: serve (default), migrate`);

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

main(process.argv[2]).catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
