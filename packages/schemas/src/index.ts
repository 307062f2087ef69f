export * from './common';
export * from './auth';
export * from './projects';
export * from './members';
export * from './tasks';
export * from './comments';
export * from './activity';
export * from './webhooks';
