CREATE TABLE `run_measures` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` text NOT NULL,
	`session_id` text,
	`type` text NOT NULL,
	`runtime` text NOT NULL,
	`tool_calls` integer NOT NULL,
	`output_chars` integer NOT NULL,
	`duration_ms` integer,
	`ended_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `run_measures_type_idx` ON `run_measures` (`project_id`,`type`,`ended_at`);--> statement-breakpoint
ALTER TABLE `sessions` ADD `priority` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `sessions` ADD `queue_order` integer;--> statement-breakpoint
ALTER TABLE `sessions` ADD `progress` text;