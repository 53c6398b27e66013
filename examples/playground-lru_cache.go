// Package cache implements a size-bounded LRU cache with per-entry expiry.
package cache

import (
	"container/list"
	"errors"
	"sync"
	"time"
)

// ErrNotFound is returned by Get when a key is missing or expired.
var ErrNotFound = errors.New("cache: key not found")

type entry struct {
	key       string
	value     []byte
	expiresAt time.Time
}

// Stats counts cache traffic since creation.
type Stats struct {
	Hits, Misses, Evictions, Expired uint64
}

// Cache is an LRU cache bounded by the total size of its values in bytes.
type Cache struct {
	mu       sync.Mutex
	maxBytes int
	used     int
	ttl      time.Duration
	order    *list.List // front = most recently used
	items    map[string]*list.Element
	stats    Stats
	now      func() time.Time
	onEvict  func(key string, value []byte)
}

// New returns a cache holding at most maxBytes of values; ttl <= 0 disables expiry.
func New(maxBytes int, ttl time.Duration) *Cache {
	return &Cache{
		maxBytes: maxBytes,
		ttl:      ttl,
		order:    list.New(),
		items:    make(map[string]*list.Element),
		now:      time.Now,
	}
}

// OnEvict registers a callback run for every entry evicted to make room.
func (c *Cache) OnEvict(fn func(key string, value []byte)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.onEvict = fn
}

// Get returns the value for key and marks it most recently used.
func (c *Cache) Get(key string) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		c.stats.Misses++
		return nil, ErrNotFound
	}
	e := el.Value.(*entry)
	if c.ttl > 0 && c.now().After(e.expiresAt) {
		c.removeElement(el)
		c.stats.Expired++
		c.stats.Misses++
		return nil, ErrNotFound
	}
	c.order.MoveToFront(el)
	c.stats.Hits++
	return e.value, nil
}

// Set stores value under key, evicting least recently used entries until it fits.
func (c *Cache) Set(key string, value []byte) error {
	if len(value) > c.maxBytes {
		return errors.New("cache: value larger than the whole cache")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.removeElement(el)
	}
	for c.used+len(value) > c.maxBytes {
		oldest := c.order.Back()
		if oldest == nil {
			break
		}
		e := oldest.Value.(*entry)
		c.removeElement(oldest)
		c.stats.Evictions++
		if c.onEvict != nil {
			c.onEvict(e.key, e.value)
		}
	}
	e := &entry{key: key, value: value, expiresAt: c.now().Add(c.ttl)}
	c.items[key] = c.order.PushFront(e)
	c.used += len(value)
	return nil
}

// Delete removes key; it reports whether the key was present.
func (c *Cache) Delete(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if ok {
		c.removeElement(el)
	}
	return ok
}

func (c *Cache) removeElement(el *list.Element) {
	e := el.Value.(*entry)
	c.order.Remove(el)
	delete(c.items, e.key)
	c.used -= len(e.value)
}

// Stats returns a snapshot of the counters.
func (c *Cache) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// Len returns the number of entries, expired ones included until they are touched.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
