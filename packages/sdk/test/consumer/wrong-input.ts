import { createTasklaneClient } from '@tasklane/sdk';

const client = createTasklaneClient({ baseUrl: 'http://127.0.0.1:1' });
// A task's title is a string: the router's input type must refuse a number here.
await client.tasks.create.mutate({ projectId: 'any', title: 42 });
