import type { CsvMapping, ImportSource } from '@tasklane/schemas';
import type { ImportPlan } from '../plan';
import { asanaPlan } from './asana';
import { csvPlan } from './csv';
import { githubPlan } from './github';
import { jiraPlan } from './jira';
import { tasklanePlan } from './tasklane';
import { trelloPlan } from './trello';

/** The plan of a file from `source`, read as it streams (a 400 IMPORT_FORMAT when it is not that source's file). */
export function planOf(source: ImportSource, file: NodeJS.ReadableStream, mapping: CsvMapping | undefined): Promise<ImportPlan> {
  switch (source) {
    case 'trello':
      return trelloPlan(file);
    case 'jira':
      return jiraPlan(file);
    case 'github':
      return githubPlan(file);
    case 'asana':
      return asanaPlan(file);
    case 'csv':
      return csvPlan(file, mapping);
    case 'tasklane':
      return tasklanePlan(file);
  }
}
