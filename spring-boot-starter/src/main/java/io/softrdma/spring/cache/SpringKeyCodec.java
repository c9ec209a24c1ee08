package io.softrdma.spring.cache;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.softrdma.memory.MemoryCodec;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;

/**
 * Cache keys as Spring's key generator makes them (the argument, or a {@code SimpleKey} of several), turned into
 * octets the way Spring Data Redis's cache turns them into strings: a String as is, anything else by its own
 * {@code toString()} (SimpleKey's lists the arguments). A key type without its own {@code toString()} is refused, as
 * its identity string would differ in every JVM. Keys are never decoded.
 *
 * <p>Thread safety: stateless.
 */
final class SpringKeyCodec implements MemoryCodec {
    static final SpringKeyCodec INSTANCE = new SpringKeyCodec();

    @Override
    public ByteBuf encode(Object key, ByteBufAllocator allocator) {
        String text = key instanceof String s ? s : describe(key);
        byte[] octets = text.getBytes(StandardCharsets.UTF_8);
        return allocator.buffer(octets.length).writeBytes(octets);
    }

    private static String describe(Object key) {
        try {
            Method toString = key.getClass().getMethod("toString");
            if (toString.getDeclaringClass() == Object.class) {
                throw new IllegalArgumentException("cache key of type " + key.getClass().getName() + " has no"
                        + " toString() of its own, so it would differ in every JVM: give @Cacheable a key expression"
                        + " (key = \"#arg.id\") or the type a toString()");
            }
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(e);
        }
        return key.toString();
    }

    @Override
    public <T> T decode(ByteBuf data, Class<T> type) {
        throw new UnsupportedOperationException("cache keys are never read back");
    }
}
