/**
 * Statements other than SELECT, one file each: CREATE TABLE, DROP TABLE, ALTER TABLE … ADD
 * COLUMN, INSERT, DELETE. Each returns a QueryResult whose `tag` is PostgreSQL's command tag.
 */
export { createTable } from './create-table.js';
export { dropTable } from './drop-table.js';
export { alterTable } from './alter-table.js';
export { insert } from './insert.js';
export { deleteFrom } from './delete.js';
