/**
 * Each backend's state as one client sees it: connecting or refusing, healthy, idle, lame duck,
 * with its active-request limit, warm-up after a restart and recent outcomes ({@link
 * dev.ballast.health.Backend}, {@link dev.ballast.health.SubsetHealth}, {@link
 * dev.ballast.health.HealthConfig}). The picking policies read these states; transports feed them
 * from connections, health checks and the signals on responses.
 */
package dev.ballast.health;
