export { parseCsv } from '../../harness/task/check/csv-records.js';
