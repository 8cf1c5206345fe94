import { type SelectQueryBuilder, sql } from 'kysely'

/** Page, size and optional inclusive `createdAt` bounds of a list query. */
export type PageInput = {
  page: number
  size: number
  startDate?: Date | undefined
  endDate?: Date | undefined
}

/**
 * Runs a filtered list query as one page, newest first by `orderBy` (then `id`), with the total
 * number of matching rows; `startDate`/`endDate` bound `created_at` inclusively. The table must
 * have `id` and `created_at` columns (and `orderBy`).
 */
export async function selectPage<DB, TB extends keyof DB, O>(
  filtered: SelectQueryBuilder<DB, TB, O>,
  input: PageInput & { orderBy: 'seq' | 'created_at' },
): Promise<{
  rows: Awaited<ReturnType<ReturnType<SelectQueryBuilder<DB, TB, O>['selectAll']>['execute']>>
  total: number
}> {
  let query = filtered
  if (input.startDate) {
    query = query.where(sql<boolean>`created_at >= ${input.startDate}`)
  }
  if (input.endDate) {
    query = query.where(sql<boolean>`created_at <= ${input.endDate}`)
  }
  const [rows, count] = await Promise.all([
    query
      .selectAll()
      .orderBy(sql.ref(input.orderBy), 'desc')
      .orderBy(sql.ref('id'), 'desc')
      .limit(input.size)
      .offset((input.page - 1) * input.size)
      .execute(),
    query.select(sql<string>`count(*)`.as('total')).executeTakeFirstOrThrow(),
  ])
  return { rows, total: Number((count as { total: string }).total) }
}
