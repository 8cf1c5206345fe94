import type { ColumnType, Generated } from 'kysely'

type Timestamp = ColumnType<Date, Date | string, Date | string>

/** Status of a durable job. */
export type JobStatus = 'queued' | 'running' | 'done' | 'failed'

/** `jobs`: durable background work claimed with `FOR UPDATE SKIP LOCKED` (see docs/jobs.md). */
export interface JobsTable {
  id: string
  kind: string
  key: string | null
  payload: ColumnType<Record<string, unknown>, string | undefined, string>
  status: ColumnType<JobStatus, JobStatus | undefined, JobStatus>
  run_at: Timestamp
  attempts: ColumnType<number, number | undefined, number>
  max_attempts: ColumnType<number, number | undefined, number>
  locked_by: string | null
  locked_until: Date | null
  last_error: string | null
  created_at: ColumnType<Date, Date | string, never>
  updated_at: Timestamp
}

/** `events`: the outbox of webhook events, written in the transaction of the state change they report. */
export interface EventsTable {
  id: string
  seq: Generated<string>
  merchant_id: string
  environment: 'test' | 'live'
  type: string
  format: 'current' | 'legacy'
  payload: ColumnType<Record<string, unknown>, string, never>
  webhook_url: string | null
  created_at: ColumnType<Date, Date | string, never>
}

/** The tables of migration `0004-jobs-events`. */
export interface JobsEventsTables {
  jobs: JobsTable
  events: EventsTable
}
