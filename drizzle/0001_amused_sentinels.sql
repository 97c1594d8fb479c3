CREATE TABLE `session_claims` (
	`klaude_session_id` text PRIMARY KEY NOT NULL,
	`holder` text NOT NULL,
	`holder_pid` integer NOT NULL,
	`holder_start` integer,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`klaude_session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `runtime_process` ADD `pid_start` integer;--> statement-breakpoint
ALTER TABLE `runtime_process` ADD `parent_process_id` integer;