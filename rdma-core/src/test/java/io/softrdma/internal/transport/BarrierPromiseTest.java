package io.softrdma.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.local.LocalChannel;
import io.netty.util.concurrent.BlockingOperationException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The write barrier's reusable promise: completes as a Netty promise does, tells its owner, and arms again. */
class BarrierPromiseTest {
    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final List<Boolean> outcomes = new ArrayList<>();

    @Test
    void aBarrierWrittenThroughTheChannelTellsTheOwnerOnceAndTheOthersListening() {
        BarrierPromise promise = new BarrierPromise(channel, outcomes::add);
        AtomicInteger others = new AtomicInteger();
        channel.writeAndFlush(Unpooled.EMPTY_BUFFER, promise.arm().addListener(f -> others.incrementAndGet()));
        assertThat(promise.isDone()).isTrue();
        assertThat(promise.isSuccess()).isTrue();
        assertThat(outcomes).containsExactly(true);
        assertThat(others).hasValue(1);
        assertThat(promise.trySuccess()).as("a second completion").isFalse();
        assertThat(outcomes).containsExactly(true);
        channel.finishAndReleaseAll();
    }

    @Test
    void aFailedBarrierCarriesItsCause() {
        IOException broken = new IOException("connection reset");
        channel.pipeline().addFirst(new ChannelOutboundHandlerAdapter() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise p) {
                p.tryFailure(broken);
            }
        });
        BarrierPromise promise = new BarrierPromise(channel, outcomes::add);
        channel.writeAndFlush(WriteBarrier.INSTANCE, promise.arm());
        assertThat(promise.cause()).isSameAs(broken);
        assertThat(promise.isSuccess()).isFalse();
        assertThat(outcomes).containsExactly(false);
        channel.finishAndReleaseAll();
    }

    @Test
    void theOwnerMayArmItAgainFromItsOutcome() {
        AtomicInteger armed = new AtomicInteger();
        BarrierPromise[] self = new BarrierPromise[1];
        self[0] = new BarrierPromise(channel, success -> {
            outcomes.add(success);
            if (armed.incrementAndGet() < 3) {
                self[0].arm();
                self[0].trySuccess();
            }
        });
        self[0].arm().trySuccess();
        assertThat(outcomes).containsExactly(true, true, true);
    }

    @Test
    void armingWhileABarrierIsOnItsWayFails() {
        BarrierPromise promise = new BarrierPromise(channel, outcomes::add).arm();
        assertThatThrownBy(promise::arm).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("still on its way");
        assertThat(promise.isDone()).isFalse();
    }

    @Test
    void aThreadWaitingOffTheEventLoopIsWokenByTheCompletion() throws Exception {
        DefaultEventLoopGroup group = new DefaultEventLoopGroup(1);
        LocalChannel local = new LocalChannel();
        try {
            group.register(local).sync();
            BarrierPromise promise = new BarrierPromise(local, outcomes::add).arm();
            AtomicReference<Thread> waiter = new AtomicReference<>();
            CompletableFuture<Boolean> waited = CompletableFuture
                    .supplyAsync(() -> {
                        waiter.set(Thread.currentThread());
                        return promise.awaitUninterruptibly(30_000);
                    });
            await().until(() -> waiter.get() != null
                    && waiter.get().getState() == Thread.State.TIMED_WAITING);
            local.eventLoop().submit(() -> promise.trySuccess()).sync();
            assertThat(waited.get(10, TimeUnit.SECONDS)).isTrue();
            assertThat(outcomes).containsExactly(true);
        } finally {
            local.close().sync();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void waitingOnTheEventLoopThatCompletesItFails() {
        BarrierPromise promise = new BarrierPromise(channel, outcomes::add).arm();
        assertThatThrownBy(promise::awaitUninterruptibly).isInstanceOf(BlockingOperationException.class);
        promise.setSuccess();
        assertThat(promise.awaitUninterruptibly(0)).isTrue();
    }
}
