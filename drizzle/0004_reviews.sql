CREATE TABLE `reviews` (
	`session_id` text PRIMARY KEY NOT NULL,
	`subject` text NOT NULL,
	`focus` text,
	`summary` text,
	`findings` text,
	`error` text,
	`sent_at` integer,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `sessions` ADD `review_of` text;--> statement-breakpoint
CREATE INDEX `sessions_review_of_idx` ON `sessions` (`review_of`);