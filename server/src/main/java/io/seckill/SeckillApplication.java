package io.seckill;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.scheduling.annotation.EnableScheduling;

/** The Spring application: every role of the engine, switched by {@code seckill.roles}. */
@SpringBootApplication
@ConfigurationPropertiesScan
@EnableScheduling
public class SeckillApplication {}
