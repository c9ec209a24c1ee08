package io.softrdma.memory.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.ByteBufOutputStream;
import io.softrdma.memory.MemoryCodec;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@link MemoryCodec#json()}: Jackson 3 streaming straight into and out of the buffer, so a value costs no
 * intermediate array. Thread safety: a JsonMapper is thread-safe once built.
 */
public final class JsonCodec implements MemoryCodec {
    public static final JsonCodec DEFAULT = new JsonCodec(JsonMapper.builder().build());

    private final JsonMapper mapper;

    public JsonCodec(JsonMapper mapper) {
        this.mapper = mapper;
    }

    @Override
    public ByteBuf encode(Object value, ByteBufAllocator allocator) {
        ByteBuf out = allocator.buffer();
        try (OutputStream stream = new ByteBufOutputStream(out)) {
            mapper.writeValue(stream, value);
            return out;
        } catch (IOException | RuntimeException e) {
            out.release();
            throw new IllegalArgumentException("cannot encode a " + value.getClass().getName() + " as JSON: "
                    + e.getMessage(), e);
        }
    }

    @Override
    public <T> T decode(ByteBuf data, Class<T> type) {
        try (InputStream stream = new ByteBufInputStream(data.duplicate())) {
            return mapper.readValue(stream, type);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot decode a " + type.getName() + " from JSON: " + e.getMessage(),
                    e);
        }
    }
}
