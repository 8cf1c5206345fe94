/**
 * Names each SQL statement by what it does, e.g. `insert into events`, `select from jobs`,
 * `with attempt: insert into webhook_attempts` (a statement with CTEs: the first CTE's name, then the
 * first data-changing verb and table), so statement-count tests read as a list of round trips.
 */
export function summarizeStatements(statements: string[]): string[] {
  return statements.map((statement) => {
    const text = statement.replace(/"/g, '').replace(/\s+/g, ' ').trim().toLowerCase()
    if (/^(begin|commit|rollback)\b/.test(text)) {
      return text.split(' ')[0] ?? text
    }
    const cte = /^with (?:recursive )?(\w+) as /.exec(text)?.[1]
    const write = /\b(insert into|update|delete from) (\w+)/.exec(text)
    const read = /\bfrom (\w+)/.exec(text)
    const what = write ? `${write[1]} ${write[2]}` : `select from ${read?.[1] ?? '(nothing)'}`
    return cte ? `${cte}: ${what}` : what
  })
}
