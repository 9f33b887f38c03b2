package io.seckill.compensation;

import io.seckill.support.OnRedisCluster;

/** {@link CompensationIT} on a Redis Cluster (three masters, a replica each): every script call stays within one slot. */
@OnRedisCluster
class CompensationOnRedisClusterIT extends CompensationIT {}
