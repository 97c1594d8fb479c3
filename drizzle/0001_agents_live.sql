CREATE TABLE `approvals` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`session_id` text NOT NULL,
	`request_id` text NOT NULL,
	`tool_name` text NOT NULL,
	`summary` text NOT NULL,
	`input` text,
	`suggestions` text,
	`suggested_rule` text,
	`reason` text,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`answer` text,
	`answer_message` text,
	`answered_by` text,
	`answered_at` integer,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `approvals_session_pending_idx` ON `approvals` (`session_id`,`answered_at`);--> statement-breakpoint
CREATE TABLE `artifacts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`session_id` text NOT NULL,
	`name` text NOT NULL,
	`text` text NOT NULL,
	`cost_usd` real,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `artifacts_session_name_idx` ON `artifacts` (`session_id`,`name`);--> statement-breakpoint
CREATE TABLE `checkpoints` (
	`session_id` text PRIMARY KEY NOT NULL,
	`turn` integer DEFAULT 0 NOT NULL,
	`in_turn` integer DEFAULT 0 NOT NULL,
	`prompt` text,
	`tool_calls` text,
	`partial_text` text,
	`recovered_turn` integer,
	`ask_cause` text,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `runtime_limits` (
	`runtime` text PRIMARY KEY NOT NULL,
	`max_running` integer NOT NULL,
	`until` integer NOT NULL,
	`reason` text,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `session_claims` (
	`klaude_session_id` text PRIMARY KEY NOT NULL,
	`holder` text NOT NULL,
	`holder_pid` integer NOT NULL,
	`holder_start` integer,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`klaude_session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `agent_updates` ADD `kind` text;--> statement-breakpoint
ALTER TABLE `runtime_process` ADD `pid_start` integer;--> statement-breakpoint
ALTER TABLE `runtime_process` ADD `parent_process_id` integer;--> statement-breakpoint
ALTER TABLE `sessions` ADD `worktree_path` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `worktree_branch` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `worktree_base` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `activity` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `run_started_at` integer;--> statement-breakpoint
ALTER TABLE `sessions` ADD `error` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `queued_at` integer;--> statement-breakpoint
CREATE INDEX `sessions_status_queued_idx` ON `sessions` (`status`,`queued_at`);--> statement-breakpoint
CREATE INDEX `sessions_project_updated_idx` ON `sessions` (`project_id`,`updated_at`);