// EventLoop module
