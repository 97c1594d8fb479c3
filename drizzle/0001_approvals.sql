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
ALTER TABLE `agent_updates` ADD `kind` text;