/**
 * Statements other than SELECT, one file each: CREATE TABLE, DROP TABLE, ALTER TABLE … ADD
 * COLUMN, INSERT, UPDATE, DELETE, TRUNCATE; CREATE [OR REPLACE] VIEW and DROP VIEW (./view.ts);
 * CREATE TABLE … AS and SELECT … INTO (./create-table-as.ts); GRANT and REVOKE (./grant.ts), CREATE/ALTER/DROP
 * ROLE (./role.ts). Each returns a QueryResult whose `tag` is
 * PostgreSQL's command tag. The writes go through a write set (./target.ts): the transaction
 * block's, or the statement's own, committed at its end.
 */
export { createTable } from './create-table.js';
export { checkCopyTo, createView, dropView } from './view.js';
export { createTableAs, isSelectInto } from './create-table-as.js';
export { dropTable } from './drop-table.js';
export { alterTable } from './alter-table.js';
export { insert, describeInsert } from './insert.js';
export { deleteFrom, describeDelete } from './delete.js';
export { update, describeUpdate } from './update.js';
export { truncate } from './truncate.js';
export { grant, grantRole } from './grant.js';
export { createRole, alterRole, dropRole, dropOwned, reassignOwned } from './role.js';
