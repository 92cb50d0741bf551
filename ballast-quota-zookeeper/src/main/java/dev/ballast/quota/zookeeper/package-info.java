/**
 * The quota service replicated: {@link dev.ballast.quota.zookeeper.ZooKeeperQuotaReplica} elects
 * a leader per resource through ZooKeeper (Curator), and followers send clients to it. Its own
 * module, so that the single embedded server carries no ZooKeeper dependency.
 */
package dev.ballast.quota.zookeeper;
