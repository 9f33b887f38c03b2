package io.seckill.devkit;

import io.seckill.bench.BenchCommand;
import io.seckill.cli.SeckillCli;
import io.seckill.demo.DemoCommand;
import io.seckill.paysim.PaySimCommand;
import java.util.List;
import picocli.CommandLine;

/**
 * The dev kit's executable: every command of the server plus {@code demo}, {@code bench} and
 * {@code paysim}, which bring their own embedded PostgreSQL, Redis and RocketMQ and the payment
 * simulator. None of it is in the server's jar.
 */
public final class DevCli {

    private DevCli() {}

    public static void main(String[] args) {
        SeckillCli.run(commandLine(), args, List.of("serve", "paysim"));
    }

    public static CommandLine commandLine() {
        return SeckillCli.commandLine()
                .addSubcommand(new DemoCommand())
                .addSubcommand(new BenchCommand())
                .addSubcommand(new PaySimCommand());
    }
}
