/**
 * PostgreSQL NOTIFY channel a trigger on each listed table writes to, after
 * every insert, update and delete of a row (migration ListPages): the payload
 * is `<table>:<project id>`. Long polls wait on it (the api's change feed), so
 * a change made by any process, the worker's status moves included, wakes
 * them at commit, and a rollback never does.
 */
export const CHANGE_CHANNEL = 'stratus_changes';

/** The tables whose rows the lists and gets show, each with the change trigger. */
export const WATCHED_TABLES = ['instances', 'managed_databases', 'volumes', 'proxy_hosts'] as const;
export type WatchedTable = (typeof WATCHED_TABLES)[number];
