import type { CsvMapping, ImportSource } from '@tasklane/schemas';
import type { ImportPlan } from '../plan';
import { asanaPlan } from './asana';
import { csvPlan } from './csv';
import { githubPlan } from './github';
import { jiraPlan } from './jira';
import { tasklanePlan } from './tasklane';
import { trelloPlan } from './trello';

/** The plan of a file from `source` (a 400 IMPORT_FORMAT when it is not that source's file). */
export function planOf(source: ImportSource, bytes: Buffer, mapping: CsvMapping | undefined): ImportPlan {
  switch (source) {
    case 'trello':
      return trelloPlan(bytes);
    case 'jira':
      return jiraPlan(bytes);
    case 'github':
      return githubPlan(bytes);
    case 'asana':
      return asanaPlan(bytes);
    case 'csv':
      return csvPlan(bytes, mapping);
    case 'tasklane':
      return tasklanePlan(bytes);
  }
}
