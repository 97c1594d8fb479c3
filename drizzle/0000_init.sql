CREATE TABLE `agent_updates` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`session_id` text NOT NULL,
	`parent_session_id` text NOT NULL,
	`text` text NOT NULL,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`acknowledged_at` integer,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`parent_session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `updates_parent_ack_idx` ON `agent_updates` (`parent_session_id`,`acknowledged_at`);--> statement-breakpoint
CREATE INDEX `updates_session_idx` ON `agent_updates` (`session_id`);--> statement-breakpoint
CREATE TABLE `claude_session_links` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`klaude_session_id` text NOT NULL,
	`claude_session_id` text NOT NULL,
	`transcript_path` text,
	`source` text NOT NULL,
	`started_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`ended_at` integer,
	`end_reason` text,
	FOREIGN KEY (`klaude_session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `claude_session_links_claude_session_id_unique` ON `claude_session_links` (`claude_session_id`);--> statement-breakpoint
CREATE INDEX `links_klaude_session_idx` ON `claude_session_links` (`klaude_session_id`,`started_at`);--> statement-breakpoint
CREATE TABLE `events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` text,
	`klaude_session_id` text,
	`kind` text NOT NULL,
	`payload` text,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`klaude_session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `events_session_idx` ON `events` (`klaude_session_id`,`id`);--> statement-breakpoint
CREATE INDEX `events_project_idx` ON `events` (`project_id`,`id`);--> statement-breakpoint
CREATE TABLE `instances` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`pid` integer NOT NULL,
	`socket_path` text NOT NULL,
	`cwd` text NOT NULL,
	`mode` text NOT NULL,
	`status` text DEFAULT 'running' NOT NULL,
	`root_session_id` text,
	`klaude_version` text,
	`started_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`ended_at` integer,
	`exit_code` integer,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`root_session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `instances_project_status_idx` ON `instances` (`project_id`,`status`);--> statement-breakpoint
CREATE TABLE `projects` (
	`id` text PRIMARY KEY NOT NULL,
	`root_path` text NOT NULL,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `projects_root_path_unique` ON `projects` (`root_path`);--> statement-breakpoint
CREATE TABLE `runtime_process` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`klaude_session_id` text NOT NULL,
	`instance_id` text,
	`pid` integer NOT NULL,
	`kind` text NOT NULL,
	`started_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`exited_at` integer,
	`exit_code` integer,
	`signal` text,
	`is_current` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`klaude_session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`instance_id`) REFERENCES `instances`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `process_session_current_idx` ON `runtime_process` (`klaude_session_id`,`is_current`);--> statement-breakpoint
CREATE INDEX `process_instance_idx` ON `runtime_process` (`instance_id`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`parent_id` text,
	`instance_id` text,
	`type` text NOT NULL,
	`runtime` text DEFAULT 'claude' NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`title` text,
	`prompt` text,
	`model` text,
	`native_session_id` text,
	`transcript_path` text,
	`log_path` text,
	`last_text` text,
	`cost_usd` real,
	`tokens_in` integer,
	`tokens_out` integer,
	`metadata` text,
	`archived_at` integer,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`ended_at` integer,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`parent_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`instance_id`) REFERENCES `instances`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `sessions_project_created_idx` ON `sessions` (`project_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `sessions_parent_idx` ON `sessions` (`parent_id`);--> statement-breakpoint
CREATE INDEX `sessions_native_idx` ON `sessions` (`native_session_id`);--> statement-breakpoint
CREATE INDEX `sessions_instance_idx` ON `sessions` (`instance_id`);