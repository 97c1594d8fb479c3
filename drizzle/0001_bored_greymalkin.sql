ALTER TABLE `sessions` ADD `activity` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `run_started_at` integer;--> statement-breakpoint
ALTER TABLE `sessions` ADD `error` text;--> statement-breakpoint
CREATE INDEX `sessions_project_updated_idx` ON `sessions` (`project_id`,`updated_at`);