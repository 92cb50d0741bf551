/**
 * Settings declared once: each config record declares its settings ({@link
 * dev.ballast.settings.Setting}: name, type, range, default, meaning) in a {@link
 * dev.ballast.settings.Settings} table, and every front end (the gRPC service config, the
 * simulator's scenarios, code) reads them through it from a {@link
 * dev.ballast.settings.SettingSource}, so a setting is added in one place and a bad value reads
 * the same everywhere. The tables of tables are {@code dev.ballast.pick.PolicyTable} and {@code
 * dev.ballast.overload.OverloadTable}.
 */
package dev.ballast.settings;
