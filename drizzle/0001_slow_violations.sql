ALTER TABLE `sessions` ADD `worktree_path` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `worktree_branch` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `worktree_base` text;