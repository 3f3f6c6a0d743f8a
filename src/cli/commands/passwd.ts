/**
 * `paxd passwd USER`: a password verifier for the users of paxd serve.
 *
 *   echo -n s3cret | paxd passwd alice               # SCRAM-SHA-256$4096:…   (a superuser's entry)
 *   echo -n s3cret | paxd passwd grafana --read-only # {"password":"SCRAM-SHA-256$4096:…","read_only":true}
 *
 * Either line is the value of the user's entry in a `--users` file (docs/SECURITY.md "Roles").
 */
import type { Command } from 'commander';
import { usage } from '../../types/index.js';
import type { Io } from '../options.js';

export function define(cmd: Command, { out }: Io): void {
  cmd
    .option('--password-stdin', 'read the password from stdin (the default)')
    .option('--md5', 'print an md5 verifier instead (only for serve --auth md5)')
    .option('--read-only', 'print a users-file entry of a read-only user (SELECT on every table, nothing else): {"password": …, "read_only": true}')
    .action(async (user: string, o) => {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      const password = Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
      if (password === '') throw usage('paxd passwd: empty password on stdin');
      const { md5Verifier, scramVerifier } = await import('../../pgwire/index.js');
      const verifier = o.md5 ? md5Verifier(user, password) : scramVerifier(password);
      out((o.readOnly ? JSON.stringify({ password: verifier, read_only: true }) : verifier) + '\n');
    });
}
