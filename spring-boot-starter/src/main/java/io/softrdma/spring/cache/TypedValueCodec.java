package io.softrdma.spring.cache;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.softrdma.memory.MemoryCodec;
import java.nio.charset.StandardCharsets;
import org.springframework.cache.support.NullValue;
import org.springframework.util.ClassUtils;

/**
 * Values of any type, as Spring's caches hold them (a method's return value, or {@link NullValue} for null): the
 * value's class name, then the value through the manager's codec, so a GET needs no type. Layout: u8 kind (0 null,
 * 1 value), and for a value u16 class-name length, the class name in UTF-8, the encoded value.
 *
 * <p>Only clients the owner's AccessPolicy lets WRITE the cache can store values here, and the codec decodes into the
 * named class only (Jackson binds declared properties, no polymorphic typing), so a value names no arbitrary code to
 * run.
 *
 * <p>Thread safety: immutable; as thread-safe as the codec it wraps.
 */
final class TypedValueCodec implements MemoryCodec {
    private static final byte NULL = 0;
    private static final byte VALUE = 1;

    private final MemoryCodec codec;
    private final ClassLoader classLoader;

    TypedValueCodec(MemoryCodec codec, ClassLoader classLoader) {
        this.codec = codec;
        this.classLoader = classLoader;
    }

    @Override
    public ByteBuf encode(Object value, ByteBufAllocator allocator) {
        if (value == null || value instanceof NullValue) {
            return allocator.buffer(1).writeByte(NULL);
        }
        byte[] type = value.getClass().getName().getBytes(StandardCharsets.UTF_8);
        ByteBuf encoded = codec.encode(value, allocator);
        try {
            return allocator.buffer(3 + type.length + encoded.readableBytes())
                    .writeByte(VALUE).writeShort(type.length).writeBytes(type).writeBytes(encoded);
        } finally {
            encoded.release();
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T decode(ByteBuf data, Class<T> ignored) {
        int at = data.readerIndex();
        byte kind = data.getByte(at);
        if (kind == NULL) {
            return (T) NullValue.INSTANCE;
        }
        if (kind != VALUE || data.readableBytes() < 3) {
            throw new IllegalStateException("not a value stored by RdmaCacheManager (kind " + kind + ")");
        }
        int length = data.getUnsignedShort(at + 1);
        String name = data.toString(at + 3, length, StandardCharsets.UTF_8);
        Class<?> type;
        try {
            type = ClassUtils.forName(name, classLoader);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalStateException("a cached value is of type " + name + ", which this application does"
                    + " not have", e);
        }
        return (T) codec.decode(data.slice(at + 3 + length, data.readableBytes() - 3 - length), type);
    }
}
